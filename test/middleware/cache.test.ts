import { describe, expect, it, vi } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { cache, LruStore, type CacheEntry, type CacheStore } from '../../src/middleware/index';
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

    it('treats an expired entry of a store without delete as a miss, reporting nothing', async () => {
      const saved = new Map<string, CacheEntry>([['hi', { events: [answer('stale')], expiresAt: WALL_CLOCK_START - 1 }]]);
      const reports: unknown[] = [];
      const store: CacheStore = {
        get: (key) => saved.get(key),
        set: (key, entry) => void saved.set(key, entry),
      };
      const run = await runStage(ModelStage, {
        context,
        terminal: scriptedTerminal([[answer('fresh')]]),
        handlers: [[ModelStage.Wrap, cache({ key: byPrompt, store, timers: manualTimers(), onError: (error) => reports.push(error) })]],
      });
      expect([run.events, reports, saved.get('hi')]).toEqual([[answer('fresh')], [], { events: [answer('fresh')], expiresAt: undefined }]);
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
      { options: undefined, problem: 'key' },
      { options: null, problem: 'key' },
      { options: {}, problem: 'key' },
      { options: { key: byPrompt, ttlMs: '1000' }, problem: 'ttlMs' },
      { options: { key: byPrompt, store: { set: () => undefined } }, problem: 'store' },
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
