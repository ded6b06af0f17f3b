/**
 * The reference agent as a durable run (MW-250, MW-248, MW-249): a process
 * killed at any step resumes in a new one whose run ends with the history of
 * the uninterrupted run, each finished step having run once.
 */
import { describe, expect, it } from 'vitest';
import { Agent, type AgentEvent, type Model, type ToolRunContext } from '../../src/agent/index';
import { textTurn, toolUseTurn } from '../../src/testing/index';
import { durableAgent, InMemoryJournal, RunnerKilledError, type StepRunner } from '../../src/durable/index';

/** What the side effects of every process of one run came to. */
interface Effects {
  readonly modelCalls: number[];
  readonly toolCalls: string[];
}

const TOOL_TURN = toolUseTurn([
  { name: 'charge', input: { cents: 500 }, toolUseId: 'c1' },
  { name: 'mail', input: { to: 'a' }, toolUseId: 'm1' },
]);
const FINAL_TURN = textTurn('Charged and mailed.');

/** A model that answers as a deterministic one would: the tool uses to the user's message, then the final text; counting its calls into `effects`. */
function modelFor(effects: Effects): Model {
  return {
    stream(request) {
      effects.modelCalls.push(effects.modelCalls.length + 1);
      const turn = request.messages.length === 1 ? TOOL_TURN : FINAL_TURN;
      return (async function* () {
        yield* turn.events ?? [];
      })();
    },
  };
}

/** A fresh agent (a new process) on `model`, its tools counting their calls into `effects`. */
function agentFor(effects: Effects, model: Model): Agent {
  const tool = (name: string) => ({
    spec: { name, description: name, inputSchema: {} },
    run: (_input: unknown, context: ToolRunContext) => {
      effects.toolCalls.push(`${name} ${context.idempotencyKey ?? 'none'}`);
      return `${name} done`;
    },
  });
  return new Agent({ model, tools: [tool('charge'), tool('mail')] });
}

/** Runs the conversation durably over `runner`; the events, or the error it ended with. */
async function run(agent: Agent, runner: StepRunner): Promise<{ events: AgentEvent[]; error?: unknown }> {
  const events: AgentEvent[] = [];
  try {
    for await (const event of durableAgent(agent, runner).stream('go')) events.push(event);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

/** A runner of `journal` that dies once the function of step `name` has started. */
function dyingIn(journal: InMemoryJournal, name: string): StepRunner {
  const runner = journal.runner('r');
  return {
    runId: runner.runId,
    run: (step, fn) =>
      runner.run(step, (attempt) => {
        const value = fn(attempt);
        if (step === name) runner.kill();
        return value;
      }),
    wait: (wait, request) => runner.wait(wait, request),
  };
}

const STEPS = ['invokeModel:1', 'executeTool:1:c1', 'executeTool:1:m1', 'invokeModel:2', 'agentStream:end'];

describe('durableAgent', () => {
  describe('an uninterrupted run', () => {
    it('records each model call and tool call as a step, ends with agentStream:end, and resolves to the result', async () => {
      const journal = new InMemoryJournal();
      const effects: Effects = { modelCalls: [], toolCalls: [] };
      const agent = agentFor(effects, modelFor(effects));
      const result = await durableAgent(agent, journal.runner('r')).invoke('go');
      expect([result.stopReason, journal.entries('r').map((entry) => entry.name), effects]).toEqual([
        'endTurn',
        STEPS,
        { modelCalls: [1, 2], toolCalls: ['charge r:c1', 'mail r:m1'] },
      ]);
    });
  });

  describe.each(STEPS.slice(0, -1))('a process killed inside step %s', (step) => {
    it("resumes in a new process with the uninterrupted run's history, running again only that step", async () => {
      const reference = new InMemoryJournal();
      const referenceEffects: Effects = { modelCalls: [], toolCalls: [] };
      const referenceAgent = agentFor(referenceEffects, modelFor(referenceEffects));
      await durableAgent(referenceAgent, reference.runner('r')).invoke('go');

      const journal = new InMemoryJournal();
      const effects: Effects = { modelCalls: [], toolCalls: [] };
      const model = modelFor(effects);
      const first = await run(agentFor(effects, model), dyingIn(journal, step));
      expect(first.error).toBeInstanceOf(RunnerKilledError);
      const secondAgent = agentFor(effects, model);
      const second = await run(secondAgent, journal.runner('r'));
      expect(second.error).toBeUndefined();
      expect(secondAgent.messages).toEqual(referenceAgent.messages);
      const ranTwice = step.startsWith('executeTool') ? { tools: 3, models: 2 } : { tools: 2, models: 3 };
      expect([effects.toolCalls.length, effects.modelCalls.length]).toEqual([ranTwice.tools, ranTwice.models]);
      expect(journal.entries('r').map((entry) => `${entry.name} ${String(entry.kind === 'step' ? entry.attempts : 0)}`)).toEqual(
        STEPS.map((name) => `${name} ${name === step ? 2 : 1}`),
      );
      expect(second.events.filter((event) => event.type === 'attempt-boundary')).toHaveLength(1);
    });
  });

  describe('given something other than an agent', () => {
    it('throws ERR_INVALID_OPTIONS', () => {
      expect(() => durableAgent({} as unknown as Agent, new InMemoryJournal().runner('r'))).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'durableAgent' }),
      );
    });
  });
});
