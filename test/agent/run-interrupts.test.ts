import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import {
  Agent,
  AgentStreamStage,
  ExecuteToolStage,
  InterruptSignal,
  createInterrupt,
  interruptId,
  type AgentEvent,
  type InterruptFunction,
} from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { assistant, collect, user, ZERO } from './fixtures';

/** The fields MW-032 makes normative, of what `run` threw. */
function failure(run: () => unknown): unknown {
  try {
    run();
    return 'no error';
  } catch (error) {
    if (!MiddlewareError.isInstance(error)) throw error;
    return { code: error.code, stage: error.stage };
  }
}

/** An agent whose AgentStreamStage Wrap handler asks `approve` before the run starts. */
function gatedAgent(turns = [textTurn('hello')]) {
  const registry = new MiddlewareRegistry();
  const answers: unknown[] = [];
  registry.add(AgentStreamStage.Wrap, async function* gate(context, next) {
    answers.push(context.interrupt({ name: 'approve', reason: 'start?' }).response);
    yield* next();
  });
  const model = new ScriptedModel(turns);
  return { agent: new Agent({ model, registry }), answers, model };
}

describe('interruptId', () => {
  it('leaves the tool-use id out for a question about the whole run', () => {
    expect([interruptId('agentStream', undefined, 'approve'), interruptId('executeTool', 't1', 'approve')]).toEqual([
      'agentStream:approve',
      'executeTool:t1:approve',
    ]);
  });
});

describe('InterruptSignal', () => {
  it('carries every interrupt raised at once, the first as interrupt, and names them all in its message', () => {
    const first = { id: 'executeTool:q1:size', name: 'size', reason: undefined };
    const second = { id: 'executeTool:q1:color', name: 'color', reason: undefined };
    const signal = new InterruptSignal([first, second]);
    expect([
      signal.interrupt,
      signal.interrupts,
      Object.isFrozen(signal.interrupts),
      signal.message,
      InterruptSignal.isInstance(signal),
    ]).toEqual([
      first,
      [first, second],
      true,
      'Interrupts "executeTool:q1:size", "executeTool:q1:color" are waiting for a response. Resume the agent with agent.resume({ "executeTool:q1:size": response, "executeTool:q1:color": response }).',
      true,
    ]);
  });
});

describe('createInterrupt', () => {
  describe('given several requests', () => {
    const interrupt: InterruptFunction = createInterrupt('executeTool', 'q1', new Map([['executeTool:q1:size', 'M']]));

    it('returns a frozen answer per request when every response is known, a stored one winning', () => {
      const answers = interrupt([
        { name: 'size', response: 'S' },
        { name: 'color', response: 'red' },
      ]);
      expect([answers, Object.isFrozen(answers)]).toEqual([[{ response: 'M' }, { response: 'red' }], true]);
    });

    it('halts on every request without a response, in order', () => {
      let thrown: unknown;
      try {
        interrupt([{ name: 'color', reason: 'Which color?' }, { name: 'size' }, { name: 'fabric' }]);
      } catch (error) {
        thrown = error;
      }
      expect((thrown as InterruptSignal).interrupts).toEqual([
        { id: 'executeTool:q1:color', name: 'color', reason: 'Which color?' },
        { id: 'executeTool:q1:fabric', name: 'fabric', reason: undefined },
      ]);
    });

    it('answers an empty array with an empty array', () => {
      expect(interrupt([])).toEqual([]);
    });

    it('throws ERR_INVALID_OPTIONS for one name asked twice', () => {
      expect(failure(() => interrupt([{ name: 'size' }, { name: 'size' }]))).toEqual({ code: 'ERR_INVALID_OPTIONS', stage: 'executeTool' });
    });
  });
});

describe('Agent', () => {
  describe('a question about the whole run', () => {
    it('halts before anything runs, keeps the history, and lists the interrupt as pending', async () => {
      const { agent, model } = gatedAgent();
      const events = await collect(agent.stream('go'));
      const interrupt = { id: 'agentStream:approve', name: 'approve', reason: 'start?' };
      expect([events, agent.messages, agent.pendingInterrupts, model.calls.length]).toEqual([
        [
          { type: 'interrupt', interrupt },
          { type: 'agentResult', stopReason: 'interrupt', message: undefined, interrupts: [interrupt], usage: ZERO },
        ],
        [],
        [interrupt],
        0,
      ]);
    });

    it('yields the very interrupt objects the agent result lists, frozen', async () => {
      const { agent } = gatedAgent();
      const [event, result] = (await collect(agent.stream('go'))) as [
        Extract<AgentEvent, { type: 'interrupt' }>,
        Extract<AgentEvent, { type: 'agentResult' }>,
      ];
      expect([event.interrupt === result.interrupts[0], Object.isFrozen(event), Object.isFrozen(event.interrupt)]).toEqual([
        true,
        true,
        true,
      ]);
    });

    it('refuses new input while it is pending, and replays the run on the resume', async () => {
      const { agent, answers } = gatedAgent();
      await agent.invoke('go');
      await expect(agent.invoke('something else')).rejects.toMatchObject({ code: 'ERR_INTERRUPT_PENDING' });
      const result = await agent.resume({ 'agentStream:approve': 'yes' });
      expect([result.stopReason, answers, agent.messages, agent.pendingInterrupts]).toEqual([
        'endTurn',
        ['yes'],
        [user('go'), assistant('hello')],
        [],
      ]);
    });

    it('drops what the run did before the question when it is asked mid-run, and the resume does it again', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Wrap, async function* askAfterFirstAnswer(context, next) {
        for await (const event of next()) {
          if (event.type === 'toolResult') context.interrupt({ name: 'continue' });
          yield event;
        }
      });
      const tool = new ScriptedTool({ name: 'a' });
      const model = new ScriptedModel([
        { ...toolUseTurn([{ name: 'a', input: {} }]), stateWrites: { n: 1 } },
        { ...toolUseTurn([{ name: 'a', input: {} }]), stateWrites: { n: 2 } },
        textTurn('done'),
      ]);
      const agent = new Agent({ model, registry, tools: [tool] });
      const halted = await agent.invoke('go');
      const atHalt = [halted.stopReason, agent.messages, agent.modelState];
      const resumed = await agent.resume({ 'agentStream:continue': true });
      expect([atHalt, resumed.stopReason, agent.messages.length, agent.modelState, tool.calls.length]).toEqual([
        ['interrupt', [], {}],
        'endTurn',
        4,
        { n: 2 },
        2,
      ]);
    });

    it('rejects the run with a signal that is not its own, leaving no trace', async () => {
      const registry = new MiddlewareRegistry();
      const stray = new InterruptSignal({ id: 'elsewhere:x', name: 'x', reason: undefined });
      registry.add(AgentStreamStage.Wrap, async function* throwsAStraySignal() {
        throw stray;
      });
      const agent = new Agent({ model: new ScriptedModel([textTurn('hi')]), registry });
      await expect(agent.invoke('go')).rejects.toBe(stray);
      expect([agent.messages, agent.pendingInterrupts]).toEqual([[], []]);
    });
  });

  describe('a question asked too late', () => {
    it("refuses a tool call's question after its run ended, and still answers a known one", async () => {
      const registry = new MiddlewareRegistry();
      let kept: InterruptFunction | undefined;
      registry.add(ExecuteToolStage.Input, (context) => {
        kept = context.interrupt;
        return context;
      });
      const agent = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'a', input: {}, toolUseId: 'a1' }]), textTurn('done')]),
        registry,
        tools: [new ScriptedTool({ name: 'a' })],
      });
      await agent.invoke('go');
      const ask = kept as InterruptFunction;
      expect([failure(() => ask({ name: 'late' })), ask({ name: 'late', response: 'given' })]).toEqual([
        { code: 'ERR_INTERRUPT_AFTER_RESULT', stage: 'executeTool' },
        { response: 'given' },
      ]);
    });

    it("refuses the run's question once the run produced its result, naming what to do", async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Wrap, async function* askAfter(context, next) {
        yield* next();
        context.interrupt({ name: 'late' });
      });
      const agent = new Agent({ model: new ScriptedModel([textTurn('hi')]), registry });
      const error = (await agent.invoke('go').catch((caught: unknown) => caught)) as MiddlewareError;
      expect([error.code, error.stage, error.message.includes('before calling next()'), agent.messages]).toEqual([
        'ERR_INTERRUPT_AFTER_RESULT',
        'agentStream',
        true,
        [],
      ]);
    });
  });
});
