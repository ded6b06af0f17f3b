import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { cache, type CacheEntry, type CacheErrorInfo, type CacheStore } from '../../src/middleware/index';
import { runStage, scriptedTerminal } from '../../src/testing/index';
import { ModelStage, WALL_CLOCK_START, answer, chunk, manualTimers, settle, type ModelContext } from './fixtures';

const context: ModelContext = { prompt: 'hi' };
const byPrompt = (value: ModelContext): string => value.prompt;

describe('cache', () => {
  describe('when the store fails', () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });

    const storeDown = new Error('store down');

    /** A map-backed store whose listed methods fail: by throwing, or by returning a rejected promise. */
    function failingStore(
      failing: Partial<Record<'get' | 'set' | 'delete', 'throws' | 'rejects'>>,
      entries: Record<string, CacheEntry> = {},
    ) {
      const saved = new Map(Object.entries(entries));
      const run = <T>(operation: 'get' | 'set' | 'delete', work: () => T): T | Promise<T> => {
        if (failing[operation] === 'throws') throw storeDown;
        if (failing[operation] === 'rejects') return Promise.reject(storeDown);
        return work();
      };
      const store: CacheStore = {
        get: (key) => run('get', () => saved.get(key)),
        set: (key, entry) => run('set', () => void saved.set(key, entry)),
        delete: (key) => run('delete', () => void saved.delete(key)),
      };
      return { store, saved };
    }
    const stale: CacheEntry = { events: [answer('stale')], expiresAt: WALL_CLOCK_START - 1 };

    it.each([
      { operation: 'get', how: 'throws', entries: {}, stored: true },
      { operation: 'get', how: 'rejects', entries: {}, stored: true },
      { operation: 'set', how: 'throws', entries: {}, stored: false },
      { operation: 'set', how: 'rejects', entries: {}, stored: false },
      { operation: 'delete', how: 'throws', entries: { hi: stale }, stored: true },
      { operation: 'delete', how: 'rejects', entries: { hi: stale }, stored: true },
    ] as const)(
      'reports a store.$operation that $how to onError and answers the call from the inner chain',
      async ({ operation, how, entries, stored }) => {
        const { store, saved } = failingStore({ [operation]: how }, entries);
        const reports: [unknown, CacheErrorInfo][] = [];
        const terminal = scriptedTerminal([[chunk('a'), answer('fresh')]]);
        const run = await runStage(ModelStage, {
          context,
          terminal,
          handlers: [
            [
              ModelStage.Wrap,
              cache({ key: byPrompt, store, ttlMs: 1_000, timers: manualTimers(), onError: (error, info) => reports.push([error, info]) }),
            ],
          ],
        });
        expect([run.events, run.error]).toEqual([[chunk('a'), answer('fresh')], undefined]);
        expect(reports.map(([error, info]) => [error, info.operation, info.key, info.run.stage, info.run.handler])).toEqual([
          [storeDown, operation, 'hi', ModelStage, 'cache'],
        ]);
        expect(reports[0]?.[0]).toBe(storeDown);
        expect(saved.get('hi')).toEqual(
          stored ? { events: [chunk('a'), answer('fresh')], expiresAt: WALL_CLOCK_START + 1_000 } : undefined,
        );
      },
    );

    // A failing get used to fail the user's call with the store's error.
    it('still serves a call whose store is down for reads and writes', async () => {
      const { store } = failingStore({ get: 'rejects', set: 'rejects' });
      const reports: string[] = [];
      const terminal = scriptedTerminal([[answer('1')], [answer('2')]]);
      const registry = new MiddlewareRegistry();
      registry.add(ModelStage.Wrap, cache({ key: byPrompt, store, onError: (_error, info) => reports.push(info.operation) }));
      expect([await registry.run(ModelStage, context, terminal), await registry.run(ModelStage, context, terminal)]).toEqual([
        answer('1'),
        answer('2'),
      ]);
      expect(reports).toEqual(['get', 'set', 'get', 'set']);
    });

    it('writes one console.warn line per failure without onError, naming neither the key nor the events', async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      const { store } = failingStore({ get: 'throws', set: 'rejects' });
      await runStage(ModelStage, {
        context: { prompt: 'secret prompt' },
        terminal: scriptedTerminal([[answer('a')]]),
        handlers: [[ModelStage.Wrap, cache({ key: byPrompt, store })]],
      });
      expect(warn.mock.calls).toEqual([
        [
          '[staged-middleware] cache: store.get() failed in Wrap handler "cache" of stage "model", so the call went to the inner chain uncached: store down. Pass options.onError to handle store failures yourself.',
        ],
        [
          '[staged-middleware] cache: store.set() failed in Wrap handler "cache" of stage "model", so the result was not stored: store down. Pass options.onError to handle store failures yourself.',
        ],
      ]);
    });

    it('writes what was thrown when the store throws something that is not an Error', async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      const store: CacheStore = {
        get: () => {
          throw 'connection refused';
        },
        set: () => undefined,
      };
      await runStage(ModelStage, {
        context,
        terminal: scriptedTerminal([[answer('a')]]),
        handlers: [[ModelStage.Wrap, cache({ key: byPrompt, store })]],
      });
      expect(warn.mock.calls).toEqual([
        [
          '[staged-middleware] cache: store.get() failed in Wrap handler "cache" of stage "model", so the call went to the inner chain uncached: connection refused. Pass options.onError to handle store failures yourself.',
        ],
      ]);
    });

    it('ends the handler with the very error onError throws', async () => {
      const fatal = new Error('cache is required');
      const { store } = failingStore({ get: 'rejects' });
      const terminal = scriptedTerminal([[answer('a')]]);
      const run = await runStage(ModelStage, {
        context,
        terminal,
        handlers: [
          [
            ModelStage.Wrap,
            cache({
              key: byPrompt,
              store,
              onError: () => {
                throw fatal;
              },
            }),
          ],
        ],
      });
      expect(run.error).toBe(fatal);
      expect(terminal.calls).toHaveLength(0);
    });
  });

  describe('when the store hangs', () => {
    const unanswered = new Promise<never>(() => undefined);

    // A store that never answered used to make the invoke unabortable: the handler awaited it without watching the signal.
    it.each<{ operation: string; store: CacheStore; delivered: unknown[] }>([
      { operation: 'get', store: { get: () => unanswered, set: () => undefined }, delivered: [] },
      { operation: 'set', store: { get: () => undefined, set: () => unanswered }, delivered: [answer('a')] },
      {
        operation: 'delete',
        store: { get: () => ({ events: [answer('stale')], expiresAt: 0 }), set: () => undefined, delete: () => unanswered },
        delivered: [],
      },
    ])('ends the wait for $operation with ERR_ABORTED as soon as the signal aborts', async ({ operation, store, delivered }) => {
      const controller = new AbortController();
      const terminal = scriptedTerminal([[answer('a')]]);
      const running = runStage(ModelStage, {
        context,
        terminal,
        signal: controller.signal,
        handlers: [[ModelStage.Wrap, cache({ key: byPrompt, store })]],
      });
      await settle();
      controller.abort('user left');
      const run = await running;
      expect(MiddlewareError.isInstance(run.error) && [run.error.code, run.error.cause]).toEqual(['ERR_ABORTED', 'user left']);
      expect([run.events, terminal.calls.length]).toEqual([delivered, operation === 'set' ? 1 : 0]);
      expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
    });

    it('names the handler in the ERR_ABORTED of its own wait, and ignores what the store does after it', async () => {
      let fail: (error: unknown) => void = () => undefined;
      const late = new Promise<undefined>((_resolve, reject) => {
        fail = reject;
      });
      const reports: string[] = [];
      const controller = new AbortController();
      const events = cache<ModelContext>({
        key: byPrompt,
        store: { get: () => late, set: () => undefined },
        onError: (_error, info) => reports.push(info.operation),
      })(context, () => scriptedTerminal([[answer('a')]])(context, { stage: ModelStage, signal: controller.signal, state: undefined }), {
        stage: ModelStage,
        signal: controller.signal,
        handler: 'cache',
      });
      const pulled = events.next().catch((error: unknown) => error);
      await settle();
      controller.abort('user left');
      const error = await pulled;
      expect(MiddlewareError.isInstance(error) && [error.code, error.stage, error.phase, error.handler, error.cause]).toEqual([
        'ERR_ABORTED',
        'model',
        'wrap',
        'cache',
        'user left',
      ]);
      fail(new Error('too late'));
      await settle();
      expect(reports).toEqual([]);
    });

    it('does not wait on a plain value the store returns: a hit replays even when the signal has aborted', async () => {
      const controller = new AbortController();
      controller.abort('user left');
      const store: CacheStore = { get: () => ({ events: [answer('stored')], expiresAt: undefined }), set: () => undefined };
      const events = cache<ModelContext>({ key: byPrompt, store })(
        context,
        () => scriptedTerminal([[answer('a')]])(context, { stage: ModelStage, signal: controller.signal, state: undefined }),
        {
          stage: ModelStage,
          signal: controller.signal,
          handler: 'cache',
        },
      );
      expect([await events.next(), await events.next()]).toEqual([
        { done: false, value: answer('stored') },
        { done: true, value: undefined },
      ]);
    });

    it('leaves no listener on the signal once the store answered', async () => {
      const controller = new AbortController();
      const store: CacheStore = { get: async () => undefined, set: async () => undefined };
      const run = await runStage(ModelStage, {
        context,
        terminal: scriptedTerminal([[answer('a')]]),
        signal: controller.signal,
        handlers: [[ModelStage.Wrap, cache({ key: byPrompt, store })]],
      });
      expect([run.result, getEventListeners(controller.signal, 'abort')]).toEqual([answer('a'), []]);
    });
  });
});
