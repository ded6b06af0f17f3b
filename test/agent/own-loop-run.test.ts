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
  type AgentResultEvent,
  type AgentStreamContext,
  type OwnLoopBody,
  type OwnLoopInput,
  type OwnLoopOptions,
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

  describe('with options.conversation', () => {
    const noUsage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    const ended = { stopReason: 'endTurn', message: undefined, usage: noUsage } as const;
    const ownResult: AgentResultEvent = { type: 'agentResult', stopReason: 'endTurn', message: undefined, interrupts: [], usage: noUsage };
    /** A conversation that logs each state it is given, starting from 'start'. */
    const logged = (log: unknown[]) => ({ get: () => 'start', set: (state: string) => void log.push(`set ${state}`) });
    /** Runs `body` with a logged conversation, logging each event type the consumer receives and how the run ended. */
    const runLogged = async (registry: MiddlewareRegistry, body: OwnLoopBody<string>): Promise<unknown[]> => {
      const log: unknown[] = [];
      try {
        for await (const event of runOwnLoop(registry, { messages: [], invocationState: {} }, body, { conversation: logged(log) }))
          log.push(event.type);
        log.push('done');
      } catch (error) {
        log.push(`failed ${(error as Error).message}`);
      }
      return log;
    };
    /** A Wrap handler that forwards the first event, stops pulling (closing the call) and ends the run itself. */
    const stopAfterOne = async function* stopAfterOne(_context: AgentStreamContext, next: () => AsyncGenerator<AgentEvent>) {
      for await (const event of next()) {
        yield event;
        break;
      }
      yield ownResult;
    };
    /** A body that checkpoints each of `states` with a textDelta event after each, then ends (or throws `error`). */
    const checkpointing = (states: readonly string[], error?: Error): OwnLoopBody<string> =>
      async function* (_context, _signal, checkpoint) {
        for (const state of states) {
          checkpoint(state);
          yield { type: 'textDelta', text: state };
        }
        if (error !== undefined) throw error;
        return ended;
      };

    it('hands the last checkpoint of the completed call to set before the agentResult reaches the caller', async () => {
      expect(await runLogged(new MiddlewareRegistry(), checkpointing(['input', 'turn 1']))).toEqual([
        'textDelta',
        'textDelta',
        'set turn 1',
        'agentResult',
        'done',
      ]);
    });

    it('hands the start to set when the completed call made no checkpoint', async () => {
      expect(await runLogged(new MiddlewareRegistry(), checkpointing([]))).toEqual(['set start', 'agentResult', 'done']);
    });

    it("keeps the checkpoint of the last attempt that completed, not a failed one's", async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Wrap, async function* retryOnce(_context, next) {
        try {
          yield* next();
        } catch {
          yield* next();
        }
      });
      let calls = 0;
      const body: OwnLoopBody<string> = (context, signal, checkpoint) =>
        ++calls === 1
          ? checkpointing(['first'], new Error('first failed'))(context, signal, checkpoint)
          : checkpointing(['second'])(context, signal, checkpoint);
      expect(await runLogged(registry, body)).toEqual(['textDelta', 'textDelta', 'set second', 'agentResult', 'done']);
    });

    it("keeps the closed call's last checkpoint when a Wrap handler ends the run itself", async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Wrap, stopAfterOne);
      expect(await runLogged(registry, checkpointing(['input', 'turn 1']))).toEqual(['textDelta', 'set input', 'agentResult', 'done']);
    });

    it('keeps nothing of a call that failed when a Wrap handler answers for it', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Wrap, async function* answer(_context, next) {
        try {
          yield* next();
        } catch {
          yield ownResult;
        }
      });
      expect(await runLogged(registry, checkpointing(['input'], new Error('model down')))).toEqual(['textDelta', 'agentResult', 'done']);
    });

    it('hands the start back when the run fails after a kept checkpoint', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Wrap, async function* failAfter(_context, next) {
        yield* next();
        yield { type: 'textDelta', text: 'late' }; // so the agentResult is delivered before the failure, not held as the result
        throw new Error('failed after the result');
      });
      registry.add(AgentStreamStage.Wrap, stopAfterOne);
      expect(await runLogged(registry, checkpointing(['input', 'turn 1']))).toEqual([
        'textDelta',
        'set input',
        'agentResult',
        'textDelta',
        'set start',
        'failed failed after the result',
      ]);
    });

    it('keeps nothing when the body fails or the consumer stops before the result', async () => {
      const log: unknown[] = [];
      const run = runOwnLoop(new MiddlewareRegistry(), { messages: [], invocationState: {} }, checkpointing(['input', 'turn 1']), {
        conversation: logged(log),
      });
      await run.next();
      await run.return();
      expect({ failed: await runLogged(new MiddlewareRegistry(), checkpointing(['input'], new Error('broke'))), stopped: log }).toEqual({
        failed: ['textDelta', 'failed broke'],
        stopped: [],
      });
    });

    it('hands over the checkpoint itself, neither copied nor frozen', async () => {
      const state = { messages: [] as unknown[] };
      const kept: unknown[] = [];
      const run = runOwnLoop(
        new MiddlewareRegistry(),
        { messages: [], invocationState: {} },
        async function* (_context, _signal, checkpoint) {
          yield* [];
          checkpoint(state);
          return ended;
        },
        { conversation: { get: (): unknown => undefined, set: (next) => void kept.push(next) } },
      );
      await collect(run);
      expect({ same: kept[0] === state, frozen: Object.isFrozen(state), calls: kept.length }).toEqual({
        same: true,
        frozen: false,
        calls: 1,
      });
    });

    it("passes get's and set's errors through unchanged", async () => {
      const [fromGet, fromSet] = [new Error('store unreachable'), new Error('store full')];
      const body = checkpointing(['input']);
      let thrownAtOnce: unknown;
      try {
        runOwnLoop(new MiddlewareRegistry(), { messages: [], invocationState: {} }, body, {
          conversation: {
            get: () => {
              throw fromGet;
            },
            set: () => undefined,
          },
        });
      } catch (error) {
        thrownAtOnce = error;
      }
      const conversation = {
        get: () => 'start',
        set: () => {
          throw fromSet;
        },
      };
      const run = runOwnLoop(new MiddlewareRegistry(), { messages: [], invocationState: {} }, body, { conversation });
      expect({ get: thrownAtOnce, set: await failure(collect(run)) }).toEqual({ get: fromGet, set: fromSet });
      expect(
        await failure(collect(runOwnLoop(new MiddlewareRegistry(), { messages: [], invocationState: {} }, body, { conversation }))),
      ).toBe(fromSet);
    });

    it('gives the body a checkpoint function that returns its state, also without a conversation', async () => {
      const returned: unknown[] = [];
      await collect(
        runOwnLoop(new MiddlewareRegistry(), { messages: [], invocationState: {} }, async function* (_context, _signal, checkpoint) {
          yield* [];
          returned.push(checkpoint('state'));
          return ended;
        }),
      );
      expect(returned).toEqual(['state']);
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

    it.each([
      ['a conversation that is not an object', 'keep'],
      ['a conversation without set', { get: () => undefined }],
      ['a conversation whose get is not a function', { get: 'start', set: () => undefined }],
    ])('throws ERR_INVALID_OPTIONS at once for %s', (_case, conversation) => {
      const options = { conversation } as unknown as OwnLoopOptions<unknown>;
      const error = caught(() =>
        runOwnLoop(new MiddlewareRegistry(), { messages: [], invocationState: {} }, noBody as unknown as OwnLoopBody, options),
      );
      expect({ ...fields(error), says: error.message.includes('options.conversation must be { get(), set(state) }') }).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'agentStream',
        phase: undefined,
        handler: undefined,
        says: true,
      });
    });
  });
});
