/**
 * `cache` over a store shared by several processes (MW-180): the TTL handed
 * to the store, entries that come back serialised, and answers that are not
 * entries. Redis itself is exercised by `npm run test:integration`.
 */
import Keyv from 'keyv';
import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { cache, type CacheEntry, type CacheErrorInfo, type CacheStore } from '../../src/middleware/index';
import { runStage, scriptedTerminal } from '../../src/testing/index';
import { ModelStage, WALL_CLOCK_START, answer, chunk, manualTimers, type ModelContext } from './fixtures';

const context: ModelContext = { prompt: 'hi' };
const byPrompt = (value: ModelContext): string => value.prompt;

/** A store that keeps entries as JSON text, as Redis behind Keyv does, and records every set. */
function jsonStore(
  initial: Record<string, unknown> = {},
): CacheStore & { readonly sets: [string, unknown, number | undefined][]; readonly saved: Map<string, string> } {
  const saved = new Map(Object.entries(initial).map(([key, value]) => [key, JSON.stringify(value)]));
  const sets: [string, unknown, number | undefined][] = [];
  return {
    sets,
    saved,
    get: async (key) => {
      const text = saved.get(key);
      return text === undefined ? undefined : (JSON.parse(text) as CacheEntry);
    },
    set: async (key, entry, ttlMs) => {
      sets.push([key, entry, ttlMs]);
      saved.set(key, JSON.stringify(entry));
    },
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('cache', () => {
  describe('writing to a store', () => {
    it.each([
      { ttlMs: 60_000, expiresAt: WALL_CLOCK_START + 60_000 },
      { ttlMs: undefined, expiresAt: undefined },
    ])('passes ttlMs $ttlMs to set, beside the wall-clock expiresAt', async ({ ttlMs, expiresAt }) => {
      const store = jsonStore();
      const terminal = scriptedTerminal([[answer('a')]]);
      await runStage(ModelStage, {
        context,
        terminal,
        handlers: [[ModelStage.Wrap, cache({ key: byPrompt, store, timers: manualTimers(), ...(ttlMs === undefined ? {} : { ttlMs }) })]],
      });
      expect(store.sets).toEqual([['hi', { events: [answer('a')], expiresAt }, ttlMs]]);
    });
  });

  describe('with a store that serialises entries as JSON', () => {
    it('replays on a hit events equal to the first ones as JSON values', async () => {
      const store = jsonStore();
      const first = [chunk('héllo ✓'), answer('done')];
      const terminal = scriptedTerminal([first, [answer('never')]]);
      const handler = cache({ key: byPrompt, store, ttlMs: 60_000 });
      const miss = await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, handler]] });
      const hit = await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, handler]] });
      expect([miss.events, hit.events, terminal.calls.length]).toEqual([first, first, 1]);
      expect(hit.events[0]).not.toBe(miss.events[0]);
    });

    it('replays what JSON gives back for events that are not JSON values', async () => {
      const store = jsonStore();
      const at = new Date(WALL_CLOCK_START);
      const terminal = scriptedTerminal([[{ type: 'result', text: 'x', at, note: undefined } as never]]);
      const handler = cache({ key: byPrompt, store });
      await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, handler]] });
      const hit = await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, handler]] });
      expect(hit.events).toEqual([{ type: 'result', text: 'x', at: at.toISOString() }]);
    });

    it('treats an expiresAt of null as no expiry', async () => {
      const store = jsonStore({ hi: { events: [answer('stored')], expiresAt: null } });
      const run = await runStage(ModelStage, {
        context,
        terminal: scriptedTerminal([[answer('fresh')]]),
        handlers: [[ModelStage.Wrap, cache({ key: byPrompt, store })]],
      });
      expect(run.events).toEqual([answer('stored')]);
    });
  });

  describe('when get answers something that is not an entry', () => {
    it.each([
      ['a string', 'cached text'],
      ['an array', [answer('a')]],
      ['events that are not an array', { events: 'x' }],
      ['an expiresAt that is a string', { events: [], expiresAt: '2030-01-01' }],
      ['an expiresAt that is not finite', { events: [], expiresAt: Number.POSITIVE_INFINITY }],
      ['a number', 42],
    ])('reports %s as a failed get with ERR_INVALID_OPTIONS, takes it as a miss and overwrites it', async (_name, stored) => {
      const store: CacheStore & { saved: Map<string, unknown> } = {
        saved: new Map<string, unknown>([['hi', stored]]),
        get(key) {
          return this.saved.get(key) as CacheEntry;
        },
        set(key, entry) {
          this.saved.set(key, entry);
        },
      };
      const reports: [unknown, Omit<CacheErrorInfo, 'run'>][] = [];
      const terminal = scriptedTerminal([[answer('fresh')]]);
      const run = await runStage(ModelStage, {
        context,
        terminal,
        handlers: [
          [
            ModelStage.Wrap,
            cache({ key: byPrompt, store, onError: (error, { operation, key }) => reports.push([error, { operation, key }]) }),
          ],
        ],
      });
      expect([run.events, store.saved.get('hi')]).toEqual([[answer('fresh')], { events: [answer('fresh')], expiresAt: undefined }]);
      const [error, info] = reports[0] ?? [];
      expect([
        reports.length,
        info,
        MiddlewareError.isInstance(error) && { code: error.code, stage: error.stage, phase: error.phase, handler: error.handler },
      ]).toEqual([1, { operation: 'get', key: 'hi' }, { code: 'ERR_INVALID_OPTIONS', stage: 'model', phase: 'wrap', handler: 'cache' }]);
    });

    it('warns by default in one line naming neither the key nor what the store holds', async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      const store: CacheStore = { get: () => 'secret user text' as never, set: () => undefined };
      await runStage(ModelStage, {
        context: { prompt: 'private prompt' },
        terminal: scriptedTerminal([[answer('fresh')]]),
        handlers: [[ModelStage.Wrap, cache({ key: byPrompt, store })]],
      });
      expect(warn.mock.calls).toEqual([
        [
          '[staged-middleware] cache: store.get() failed in Wrap handler "cache" of stage "model", so the call went to the inner chain uncached: [ERR_INVALID_OPTIONS] options.store.get() of Wrap handler "cache" of stage "model" answered a value of type string, which is not a cache entry { events: [...], expiresAt?: number }; a store shared with other programs may hold other values under the same key, so give the cache its own namespace or key prefix. Pass options.onError to handle store failures yourself.',
        ],
      ]);
    });

    it('takes null as a plain miss, reporting nothing', async () => {
      const reports: string[] = [];
      const store: CacheStore = { get: () => null, set: () => undefined };
      const run = await runStage(ModelStage, {
        context,
        terminal: scriptedTerminal([[answer('fresh')]]),
        handlers: [[ModelStage.Wrap, cache({ key: byPrompt, store, onError: (_error, info) => reports.push(info.operation) })]],
      });
      expect([run.events, reports]).toEqual([[answer('fresh')], []]);
    });
  });

  describe('with a Keyv instance as its store', () => {
    it('accepts it as a CacheStore with no adapter', () => {
      expectTypeOf(new Keyv<CacheEntry>()).toExtend<CacheStore>();
    });

    it('stores through Keyv and replays on a hit, Keyv expiring the entry with the ttl it was given', async () => {
      const keyv = new Keyv<CacheEntry>({ namespace: 'agent-cache' });
      const terminal = scriptedTerminal([[chunk('a'), answer('first')], [answer('second')]]);
      const handler = cache({ key: byPrompt, store: keyv, ttlMs: 60_000 });
      await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, handler]] });
      const hit = await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, handler]] });
      const stored = await keyv.get('hi', { raw: true });
      expect([hit.events, terminal.calls.length, stored?.value?.events]).toEqual([
        [chunk('a'), answer('first')],
        1,
        [chunk('a'), answer('first')],
      ]);
      // Keyv's own expiry, from the ttl cache passed, agrees with expiresAt to within the time the test took.
      expect(Math.abs((stored?.expires ?? 0) - (stored?.value?.expiresAt ?? 0))).toBeLessThan(1_000);
    });
  });
});
