import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, ExecuteToolStage, InvokeModelStage, type Model, type ModelStreamEvent } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { user, ZERO } from './fixtures';

/** A promise with its settle functions exposed. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (reason: unknown) => void } {
  let resolve: (value: T) => void = () => undefined;
  let reject: (reason: unknown) => void = () => undefined;
  const promise = new Promise<T>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise job and timer callback run. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

const cancelled = { type: 'agentResult', stopReason: 'cancelled', message: undefined, interrupts: [], usage: ZERO };

/** A tool whose calls report that they started and then wait on `result`, whatever their signal does. */
function stuckTool(result: Promise<unknown>): { tool: ScriptedTool; started: Promise<void> } {
  const started = deferred<undefined>();
  const tool = new ScriptedTool({
    name: 'stuck',
    respond: () => {
      started.resolve(undefined);
      return result;
    },
  });
  return { tool, started: started.promise };
}

/** A model whose stream yields `messageStart`, then waits on `next` forever, recording return() calls. */
function stuckModel(): { model: Model; started: Promise<void>; returns: string[] } {
  const started = deferred<undefined>();
  const returns: string[] = [];
  const model: Model = {
    stream: () => {
      let pulls = 0;
      return {
        [Symbol.asyncIterator]: () => ({
          next: (): Promise<IteratorResult<ModelStreamEvent>> => {
            pulls += 1;
            if (pulls === 1) return Promise.resolve({ done: false, value: { type: 'messageStart', role: 'assistant' } });
            started.resolve(undefined);
            return new Promise(() => undefined);
          },
          return: (): Promise<IteratorResult<ModelStreamEvent>> => {
            returns.push('return');
            return new Promise(() => undefined);
          },
        }),
      };
    },
  };
  return { model, started: started.promise, returns };
}

/** A Wrap handler that only forwards, so a stage has a layer around its terminal. */
async function* passThrough<TEvent>(
  _context: unknown,
  next: () => AsyncGenerator<TEvent, void, undefined>,
): AsyncGenerator<TEvent, void, undefined> {
  yield* next();
}

describe('Agent', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
  });

  describe('cancel() while a tool ignores its signal', () => {
    it.each([
      ['no handler', false],
      ['a Wrap handler around ExecuteToolStage', true],
    ])('ends the run with cancelled and writes nothing back (%s)', async (_label, wrapped) => {
      const registry = new MiddlewareRegistry();
      if (wrapped) registry.add(ExecuteToolStage.Wrap, passThrough);
      const { tool, started } = stuckTool(new Promise(() => undefined));
      const model = new ScriptedModel([
        { ...toolUseTurn([{ name: 'stuck', input: {} }]), stateWrites: { wrote: true } },
        textTurn('after'),
      ]);
      const agent = new Agent({ model, registry, tools: [tool], messages: [user('old')], modelState: { start: 1 } });
      const run = agent.invoke('go');
      await started;
      expect(agent.cancel()).toEqual(true);
      expect(await run).toEqual(cancelled);
      expect([agent.messages, agent.modelState, agent.pendingInterrupts]).toEqual([[user('old')], { start: 1 }, []]);
      expect((await agent.invoke('again')).stopReason).toEqual('endTurn');
    });

    it('ends the run with cancelled when the caller signal aborts', async () => {
      const controller = new AbortController();
      const { tool, started } = stuckTool(new Promise(() => undefined));
      const agent = new Agent({ model: new ScriptedModel([toolUseTurn([{ name: 'stuck', input: {} }])]), tools: [tool] });
      const run = agent.invoke('go', { signal: controller.signal });
      await started;
      controller.abort('stop');
      expect(await run).toEqual(cancelled);
      expect(agent.messages).toEqual([]);
    });

    it.each([
      [
        'resolves',
        (pending: ReturnType<typeof deferred<unknown>>) => {
          pending.resolve('late value');
        },
      ],
      [
        'rejects',
        (pending: ReturnType<typeof deferred<unknown>>) => {
          pending.reject(new Error('late failure'));
        },
      ],
    ])('ignores a tool promise that %s after the run was cancelled', async (_label, settleLate) => {
      const pending = deferred<unknown>();
      const { tool, started } = stuckTool(pending.promise);
      const model = new ScriptedModel([toolUseTurn([{ name: 'stuck', input: {} }]), textTurn('after')]);
      const agent = new Agent({ model, tools: [tool] });
      const events: string[] = [];
      const run = (async () => {
        for await (const event of agent.stream('go')) events.push(event.type);
      })();
      await started;
      agent.cancel();
      await run;
      settleLate(pending);
      await settle();
      expect([events.at(-1), agent.messages, model.calls.length, unhandled]).toEqual(['agentResult', [], 1, []]);
    });
  });

  describe('cancel() while the model ignores its signal', () => {
    it.each([
      ['no handler', false],
      ['a Wrap handler around InvokeModelStage', true],
    ])('ends the run with cancelled and asks the stream to close (%s)', async (_label, wrapped) => {
      const registry = new MiddlewareRegistry();
      if (wrapped) registry.add(InvokeModelStage.Wrap, passThrough);
      const { model, started, returns } = stuckModel();
      const agent = new Agent({ model, registry, messages: [user('old')], modelState: { start: 1 } });
      const run = agent.invoke('go');
      await started;
      agent.cancel();
      expect(await run).toEqual(cancelled);
      expect([agent.messages, agent.modelState, returns]).toEqual([[user('old')], { start: 1 }, ['return']]);
    });

    it('ignores a pull that rejects after the run was cancelled', async () => {
      const started = deferred<undefined>();
      const pull = deferred<IteratorResult<ModelStreamEvent>>();
      const model: Model = {
        stream: () => ({
          [Symbol.asyncIterator]: () => ({
            next: () => {
              started.resolve(undefined);
              return pull.promise;
            },
          }),
        }),
      };
      const agent = new Agent({ model });
      const run = agent.invoke('go');
      await started.promise;
      agent.cancel();
      expect(await run).toEqual(cancelled);
      pull.reject(new Error('late failure'));
      await settle();
      expect(unhandled).toEqual([]);
    });
  });

  describe('a Wrap handler that narrows the signal of a tool that ignores it', () => {
    it('gets the reason of its own signal at once and answers in place of the tool', async () => {
      const local = new AbortController();
      const reason = new Error('tool took too long');
      const caught: unknown[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, async function* deadline(context, next) {
        try {
          yield* next(context, { signal: local.signal });
        } catch (error) {
          caught.push(error);
          yield {
            type: 'toolResult',
            toolResult: {
              type: 'toolResult',
              toolUseId: context.toolUse.toolUseId,
              name: context.toolUse.name,
              status: 'error',
              content: [{ type: 'text', text: 'timed out' }],
            },
          };
        }
      });
      const { tool, started } = stuckTool(new Promise(() => undefined));
      const agent = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'stuck', input: {}, toolUseId: 's1' }]), textTurn('gave up')]),
        tools: [tool],
        registry,
      });
      const run = agent.invoke('go');
      await started;
      local.abort(reason);
      const result = await run;
      expect([result.stopReason, caught, agent.messages[2]]).toEqual([
        'endTurn',
        [reason],
        {
          role: 'user',
          content: [
            { type: 'toolResult', toolUseId: 's1', name: 'stuck', status: 'error', content: [{ type: 'text', text: 'timed out' }] },
          ],
        },
      ]);
      expect(caught[0]).toBe(reason);
    });
  });

  describe('the run signal over many calls', () => {
    it('carries no more abort listeners at the last tool call than at the first', async () => {
      const counts: number[] = [];
      const tool = new ScriptedTool({
        name: 'count',
        respond: (_input, context) => void counts.push(getEventListeners(context.signal, 'abort').length),
      });
      const turns = [1, 2, 3, 4].map((index) => toolUseTurn([{ name: 'count', input: {}, toolUseId: `c${index}` }]));
      const agent = new Agent({ model: new ScriptedModel([...turns, textTurn('done')]), tools: [tool] });
      await agent.invoke('go');
      expect(counts.length).toEqual(4);
      expect(new Set(counts).size).toEqual(1);
    });

    it('carries no more abort listeners at the last model call than at the first', async () => {
      const counts: number[] = [];
      const scripted = new ScriptedModel(
        [1, 2, 3].map((index) => toolUseTurn([{ name: 'a', input: {}, toolUseId: `a${index}` }])).concat(textTurn('done')),
      );
      const model: Model = {
        stream: (request, options) => {
          counts.push(getEventListeners(options.signal, 'abort').length);
          return scripted.stream(request, options);
        },
      };
      await new Agent({ model, tools: [new ScriptedTool({ name: 'a' })] }).invoke('go');
      expect(counts.length).toEqual(4);
      expect(new Set(counts).size).toEqual(1);
    });
  });
});
