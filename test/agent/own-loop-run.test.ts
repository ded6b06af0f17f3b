import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import {
  AgentStreamStage,
  InterruptSignal,
  InvokeModelStage,
  createModelContext,
  modelTerminal,
  runOwnLoop,
  type AgentEvent,
  type AgentStreamContext,
  type OwnLoopBody,
  type OwnLoopInput,
  type OwnLoopOutcome,
} from '../../src/agent/index';
import { ScriptedModel, textTurn } from '../../src/testing/index';
import { caught, collect, failure, fields } from '../assertions';
import { assistant, user } from './fixtures';

const usage = { inputTokens: 2, outputTokens: 1, totalTokens: 3 };

/** A body that makes one model call of the run's messages and ends with the outcome `outcomeOf` makes of it. */
function oneCall(registry: MiddlewareRegistry, model: ScriptedModel, outcomeOf?: (message: unknown) => OwnLoopOutcome): OwnLoopBody {
  return async function* (context: AgentStreamContext, signal: AbortSignal) {
    const modelContext = createModelContext({
      model,
      messages: context.messages,
      systemPrompt: undefined,
      toolSpecs: [],
      invocationState: context.invocationState,
    });
    let last: AgentEvent | undefined;
    for await (const event of registry.invoke(InvokeModelStage, modelContext, modelTerminal, { signal })) yield (last = event);
    const result = last as Extract<AgentEvent, { type: 'modelResult' }>;
    return outcomeOf?.(result.message) ?? { stopReason: result.stopReason, message: result.message, usage: result.usage };
  };
}

describe('runOwnLoop', () => {
  describe('with a body that makes a model call', () => {
    it("yields the body's events, then the agentResult made of its outcome, frozen", async () => {
      const registry = new MiddlewareRegistry();
      const model = new ScriptedModel([textTurn('Hello.', { usage })]);
      const events = await collect(runOwnLoop(registry, { messages: [user('Hi')], invocationState: {} }, oneCall(registry, model)));
      const result = events[events.length - 1];
      expect({ types: events.map((event) => event.type), result, frozen: Object.isFrozen(result) }).toEqual({
        types: ['messageStart', 'textDelta', 'usage', 'messageStop', 'modelResult', 'agentResult'],
        result: { type: 'agentResult', stopReason: 'endTurn', message: assistant('Hello.'), interrupts: [], usage },
        frozen: true,
      });
    });

    it('gives the body the context after the AgentStreamStage Input handlers and runs its Output handlers on the result', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Input, (context) => ({ ...context, messages: [...context.messages, user('Be brief.')] }));
      registry.add(AgentStreamStage.Output, (result) => result.update((draft) => void (draft.usage = { ...usage, totalTokens: 0 })));
      const model = new ScriptedModel([textTurn('Ok.', { usage })]);
      const invocationState = { run: 1 };
      const events = await collect(runOwnLoop(registry, { messages: [user('Hi')], invocationState }, oneCall(registry, model)));
      expect({ received: model.calls[0]?.request.messages, result: events[events.length - 1] }).toEqual({
        received: [user('Hi'), user('Be brief.')],
        result: {
          type: 'agentResult',
          stopReason: 'endTurn',
          message: assistant('Ok.'),
          interrupts: [],
          usage: { ...usage, totalTokens: 0 },
        },
      });
    });

    it("answers the run's own questions from input.responses", async () => {
      const registry = new MiddlewareRegistry();
      const answers: unknown[] = [];
      const body: OwnLoopBody = async function* (context) {
        answers.push(context.interrupt({ name: 'confirm' }).response);
        yield* [];
        return { stopReason: 'endTurn', message: undefined, usage };
      };
      const input: OwnLoopInput = { messages: [], invocationState: {}, responses: { 'agentStream:confirm': 'yes' } };
      await collect(runOwnLoop(registry, input, body));
      const unanswered = await failure(collect(runOwnLoop(registry, { messages: [], invocationState: {} }, body)));
      expect({ answers, unanswered: InterruptSignal.isInstance(unanswered) ? unanswered.interrupt.id : unanswered }).toEqual({
        answers: ['yes'],
        unanswered: 'agentStream:confirm',
      });
    });
  });

  describe('with the outcomes of stopped and halted runs', () => {
    it('keeps stoppedBy on a stopped run and the interrupts on a halted one', async () => {
      const registry = new MiddlewareRegistry();
      const interrupt = { id: 'executeTool:t1:approve', name: 'approve', reason: 'Deletes files' };
      const resultOf = async (outcome: OwnLoopOutcome) => {
        const events = await collect(
          runOwnLoop(registry, { messages: [], invocationState: {} }, async function* () {
            yield* [];
            return outcome;
          }),
        );
        return events[events.length - 1];
      };
      expect([
        await resultOf({ stopReason: 'stopped', message: undefined, usage, stoppedBy: { handler: 'maxTurns', reason: 'reached 1 turns' } }),
        await resultOf({ stopReason: 'interrupt', message: undefined, usage, interrupts: [interrupt] }),
      ]).toEqual([
        {
          type: 'agentResult',
          stopReason: 'stopped',
          message: undefined,
          interrupts: [],
          usage,
          stoppedBy: { handler: 'maxTurns', reason: 'reached 1 turns' },
        },
        { type: 'agentResult', stopReason: 'interrupt', message: undefined, interrupts: [interrupt], usage },
      ]);
    });

    it('fails the run with ERR_INVALID_OPTIONS for a body that returns no iterator', async () => {
      const run = runOwnLoop(new MiddlewareRegistry(), { messages: [], invocationState: {} }, (() => undefined) as unknown as OwnLoopBody);
      const error = await failure(collect(run));
      expect({ ...fields(error), says: (error as MiddlewareError).message.includes('the body must return an async iterator') }).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'agentStream',
        phase: undefined,
        handler: undefined,
        says: true,
      });
    });

    it.each([
      ['no outcome', undefined, 'the body must return { stopReason, message, usage, stoppedBy?, interrupts? }'],
      ['usage that is not counted', { stopReason: 'endTurn', message: undefined, usage: {} }, 'the body must return'],
      [
        'stoppedBy on a run that ended by itself',
        { stopReason: 'endTurn', message: undefined, usage, stoppedBy: { handler: 'h' } },
        "stoppedBy (the turn decision's) goes with",
      ],
      [
        'a stopped run without stoppedBy',
        { stopReason: 'stopped', message: undefined, usage },
        "stoppedBy (the turn decision's) goes with",
      ],
      [
        'a halted run without interrupts',
        { stopReason: 'interrupt', message: undefined, usage, interrupts: [] },
        "a run halted on questions has stopReason 'interrupt'",
      ],
    ])('fails the run with ERR_INVALID_OPTIONS for %s', async (_case, outcome, text) => {
      const run = runOwnLoop(new MiddlewareRegistry(), { messages: [], invocationState: {} }, async function* () {
        yield* [];
        return outcome as OwnLoopOutcome;
      });
      const error = await failure(collect(run));
      expect({ ...fields(error), says: (error as MiddlewareError).message.includes(text) }).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'agentStream',
        phase: undefined,
        handler: undefined,
        says: true,
      });
    });
  });

  describe('with a body that fails or a consumer that stops early', () => {
    it("rejects with the body's error as thrown", async () => {
      const thrown = new Error('loop broke');
      const error = await failure(
        collect(
          runOwnLoop(new MiddlewareRegistry(), { messages: [], invocationState: {} }, async function* () {
            yield* [];
            throw thrown;
          }),
        ),
      );
      expect(error).toBe(thrown);
    });

    it('closes the body when the run is closed', async () => {
      const steps: string[] = [];
      const run = runOwnLoop(new MiddlewareRegistry(), { messages: [], invocationState: {} }, async function* () {
        try {
          yield { type: 'messageStart', role: 'assistant' };
          steps.push('resumed');
          return { stopReason: 'endTurn', message: undefined, usage };
        } finally {
          steps.push('closed');
        }
      });
      await run.next();
      await run.return();
      expect(steps).toEqual(['closed']);
    });
  });

  describe('with bad arguments', () => {
    const noBody = (): undefined => undefined;
    it.each([
      ['input without messages', { invocationState: {} }, noBody, 'input must be { messages: Message[], invocationState: object }'],
      ['input without an invocation state', { messages: [] }, noBody, 'input must be'],
      ['a body that is not a function', { messages: [], invocationState: {} }, 'body', 'body must be an async generator function'],
    ])('throws ERR_INVALID_OPTIONS at once for %s', (_case, input, body, text) => {
      const error = caught(() => runOwnLoop(new MiddlewareRegistry(), input as OwnLoopInput, body as unknown as OwnLoopBody));
      expect({ ...fields(error), says: error.message.includes(`runOwnLoop(registry, input, body): ${text}`) }).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'agentStream',
        phase: undefined,
        handler: undefined,
        says: true,
      });
    });
  });
});
