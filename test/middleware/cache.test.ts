import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/index';
import { cache, LruStore, type CacheEntry, type CacheErrorInfo, type CacheStore } from '../../src/middleware/index';
import { runStage, scriptedTerminal, throws, waits } from '../../src/testing/index';
import { ModelStage, WALL_CLOCK_START, answer, chunk, manualTimers, settle, type ModelContext } from './fixtures';

const context: ModelContext = { prompt: 'hi' };
const byPrompt = (value: ModelContext): string => value.prompt;

describe('cache', () => {
  describe('on a miss, then a hit', () => {
    it('records the events and replays them without calling next', async () => {
      const terminal = scriptedTerminal([[chunk('a'), answer('first')], [answer('second')]]);
      const handler = cache({ key: byPrompt });
      const miss = await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, handler]] });
      const hit = await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, handler]] });
      expect(miss.events).toEqual([chunk('a'), answer('first')]);
      expect(hit.events).toEqual([chunk('a'), answer('first')]);
      expect([miss.calls.cache?.nextCalls, hit.calls.cache?.nextCalls]).toEqual([1, 0]);
      expect(terminal.calls).toHaveLength(1);
    });

    it('keeps different keys apart and skips the cache when the key is undefined', async () => {
      const terminal = scriptedTerminal([[answer('1')], [answer('2')], [answer('3')], [answer('4')]]);
      const registry = new MiddlewareRegistry();
      registry.add(ModelStage.Wrap, cache({ key: (value: ModelContext) => (value.prompt === 'skip' ? undefined : value.prompt) }));
      const results = [];
      for (const prompt of ['a', 'b', 'a', 'skip', 'skip']) results.push(await registry.run(ModelStage, { prompt }, terminal));
      expect(results).toEqual([answer('1'), answer('2'), answer('1'), answer('3'), answer('4')]);
    });
  });

  describe('ttlMs', () => {
    it('treats an entry older than ttlMs as a miss and replaces it', async () => {
      const timers = manualTimers();
      const deleted: string[] = [];
      const store = new LruStore(10);
      const tracked: CacheStore = {
        get: (key) => store.get(key),
        set: (key, entry) => {
          store.set(key, entry);
        },
        delete: (key) => {
          deleted.push(key);
          store.delete(key);
        },
      };
      const registry = new MiddlewareRegistry();
      registry.add(ModelStage.Wrap, cache({ key: byPrompt, ttlMs: 1_000, timers, store: tracked }));
      const terminal = scriptedTerminal([[answer('old')], [answer('new')]]);
      expect(await registry.run(ModelStage, context, terminal)).toEqual(answer('old'));
      await timers.advance(999);
      expect(await registry.run(ModelStage, context, terminal)).toEqual(answer('old'));
      await timers.advance(1);
      expect(await registry.run(ModelStage, context, terminal)).toEqual(answer('new'));
      expect(deleted).toEqual(['hi']);
      expect(store.get('hi')).toEqual({ events: [answer('new')], expiresAt: WALL_CLOCK_START + 2_000 });
    });

    // expiresAt used to be read from performance.now(), whose origin is the start of each process: a shared store's
    // entries lived on in a process started later, and an entry written by a long-running process looked expired to a new one.
    it('keeps expiresAt in milliseconds since the Unix epoch, so every process sharing the store expires it alike', async () => {
      const shared = new LruStore();
      const terminal = scriptedTerminal([[answer('first')], [answer('fresh')]]);
      const writer = manualTimers();
      await runStage(ModelStage, {
        context,
        terminal,
        handlers: [[ModelStage.Wrap, cache({ key: byPrompt, ttlMs: 1_000, store: shared, timers: writer })]],
      });
      expect(shared.get('hi')).toEqual({ events: [answer('first')], expiresAt: WALL_CLOCK_START + 1_000 });
      // Another process, started later: its monotonic clock is back at 0, its wall clock 5 s on.
      const reader = { ...manualTimers(), wallClock: () => WALL_CLOCK_START + 5_000 };
      const later = await runStage(ModelStage, {
        context,
        terminal,
        handlers: [[ModelStage.Wrap, cache({ key: byPrompt, ttlMs: 1_000, store: shared, timers: reader })]],
      });
      expect(later.result).toEqual(answer('fresh'));
      expect(terminal.calls).toHaveLength(2);
    });

    it('reads the wall clock from Date.now by default', async () => {
      vi.useFakeTimers({ now: Date.UTC(2030, 0, 1) });
      try {
        const store = new LruStore();
        await runStage(ModelStage, {
          context,
          terminal: scriptedTerminal([[answer('a')]]),
          handlers: [[ModelStage.Wrap, cache({ key: byPrompt, ttlMs: 60_000, store })]],
        });
        expect(store.get('hi')).toEqual({ events: [answer('a')], expiresAt: Date.UTC(2030, 0, 1) + 60_000 });
      } finally {
        vi.useRealTimers();
      }
    });
  });

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

  describe('a pluggable store', () => {
    it('awaits an async store and hands it the entry', async () => {
      const saved = new Map<string, CacheEntry>();
      const store: CacheStore = {
        get: async (key) => saved.get(key),
        set: async (key, entry) => {
          saved.set(key, entry);
        },
      };
      const terminal = scriptedTerminal([[chunk('x'), answer('y')]]);
      await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, cache({ key: byPrompt, store })]] });
      expect([...saved]).toEqual([['hi', { events: [chunk('x'), answer('y')], expiresAt: undefined }]]);
      const hit = await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, cache({ key: byPrompt, store })]] });
      expect(hit.result).toEqual(answer('y'));
      expect(terminal.calls).toHaveLength(1);
    });
  });

  describe('when the inner chain does not complete', () => {
    it('does not store a failed chain', async () => {
      const boom = new Error('boom');
      const store = new LruStore();
      const terminal = scriptedTerminal([[chunk('a'), throws(boom)], [answer('ok')]]);
      const failed = await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, cache({ key: byPrompt, store })]] });
      expect(failed.error).toBe(boom);
      expect(store.size).toBe(0);
    });

    it('does not store an aborted chain', async () => {
      const store = new LruStore();
      const controller = new AbortController();
      const terminal = scriptedTerminal([[chunk('a'), waits(Infinity)]]);
      const running = runStage(ModelStage, {
        context,
        terminal,
        signal: controller.signal,
        handlers: [[ModelStage.Wrap, cache({ key: byPrompt, store })]],
      });
      await settle();
      controller.abort('stop');
      const run = await running;
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_ABORTED');
      expect(store.size).toBe(0);
    });

    it('does not store a chain that completed after the signal aborted', async () => {
      const store = new LruStore();
      const controller = new AbortController();
      const abortingTerminal = async function* abortingTerminal(): AsyncGenerator<ReturnType<typeof answer>, void, undefined> {
        yield answer('complete');
        // Aborted after the last event, while the chain completes: cache sees the end, not an error.
        controller.abort('late');
      };
      const run = await runStage(ModelStage, {
        context,
        terminal: abortingTerminal,
        signal: controller.signal,
        handlers: [[ModelStage.Wrap, cache({ key: byPrompt, store })]],
      });
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_ABORTED');
      expect(store.size).toBe(0);
    });

    it('does not store a chain the consumer closed early', async () => {
      const store = new LruStore();
      const registry = new MiddlewareRegistry();
      registry.add(ModelStage.Wrap, cache({ key: byPrompt, store }));
      const events = registry.invoke(ModelStage, context, scriptedTerminal([[chunk('a'), answer('b')]]));
      await events.next();
      await events.return();
      expect(store.size).toBe(0);
    });
  });

  describe('options', () => {
    it.each([
      { options: {}, problem: 'key' },
      { options: { key: byPrompt, ttlMs: 0 }, problem: 'ttlMs' },
      { options: { key: byPrompt, store: { get: () => undefined } }, problem: 'store' },
      { options: { key: byPrompt, maxEntries: 0 }, problem: 'options.maxEntries' },
      { options: { key: byPrompt, store: { get: () => undefined, set: () => undefined, delete: 'no' } }, problem: 'store' },
      { options: { key: byPrompt, timers: {} }, problem: 'options.timers' },
      { options: { key: byPrompt, timers: { now: () => 0 } }, problem: 'options.timers must have wallClock()' },
      { options: { key: byPrompt, onError: 'log' }, problem: 'options.onError' },
    ])('rejects bad $problem with ERR_INVALID_OPTIONS', ({ options, problem }) => {
      expect(() => cache(options as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'cache', message: expect.stringContaining(problem) }),
      );
    });
  });
});

describe('LruStore', () => {
  const entry = (text: string): CacheEntry => ({ events: [text], expiresAt: undefined });

  describe('when full', () => {
    it('evicts the least recently used entry, counting reads as use', () => {
      const store = new LruStore(2);
      store.set('a', entry('a'));
      store.set('b', entry('b'));
      store.get('a');
      store.set('c', entry('c'));
      expect([store.get('a'), store.get('b'), store.get('c')]).toEqual([entry('a'), undefined, entry('c')]);
      expect(store.size).toBe(2);
    });

    it('replaces an entry set again without evicting another', () => {
      const store = new LruStore(2);
      store.set('a', entry('a'));
      store.set('b', entry('b'));
      store.set('a', entry('a2'));
      expect([store.get('a'), store.get('b')]).toEqual([entry('a2'), entry('b')]);
    });
  });

  describe('delete', () => {
    it('removes the entry', () => {
      const store = new LruStore();
      store.set('a', entry('a'));
      store.delete('a');
      expect(store.get('a')).toBeUndefined();
    });
  });

  describe('constructor', () => {
    it.each([0, 1.5, Number.NaN])('rejects maxEntries %s with ERR_INVALID_OPTIONS', (maxEntries) => {
      expect(() => new LruStore(maxEntries)).toThrow(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          handler: 'LruStore',
          message: expect.stringContaining('maxEntries must be an integer'),
        }),
      );
    });
  });
});
