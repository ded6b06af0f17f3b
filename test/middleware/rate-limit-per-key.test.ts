/**
 * `rateLimit` with a `key` function: a bucket per key value with a bound on
 * the idle ones (MW-277), what the key function may return (MW-278), and the
 * store keys of a shared limiter (MW-279). The quotas in a real Redis are
 * checked by `npm run test:integration`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, createStage } from '../../src/core/index';
import { rateLimit, type SharedLimiter } from '../../src/middleware/index';
import { manualTimers, settle } from './fixtures';

const TenantStage = createStage<{ readonly tenant: string }, string>('tenant');

/** Starts one invoke per tenant, in order, and records `<tenant>@<clock>` when each terminal call starts. */
function startTenants(registry: MiddlewareRegistry, now: () => number) {
  const starts: string[] = [];
  const runs: Promise<unknown>[] = [];
  const start = (...tenants: string[]): void => {
    for (const tenant of tenants) {
      const terminal = async function* timed(context: { readonly tenant: string }): AsyncGenerator<string, void, undefined> {
        starts.push(`${context.tenant}@${now()}`);
        yield 'done';
      };
      runs.push(registry.run(TenantStage, { tenant }, terminal).catch((error: unknown) => error));
    }
  };
  return { starts, runs, start };
}

/** A limiter that grants every call and records it. */
function grantingLimiter() {
  const calls: string[] = [];
  const limiter: SharedLimiter = {
    consume(key, points) {
      calls.push(`consume ${key} ${points}`);
      return Promise.resolve({ remainingPoints: 0 });
    },
  };
  return { limiter, calls };
}

describe('rateLimit', () => {
  describe('with a key function', () => {
    it('limits two key values independently', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(TenantStage.Wrap, rateLimit({ tokensPerInterval: 1, intervalMs: 100, key: (context) => context.tenant, timers }));
      const { starts, runs, start } = startTenants(registry, () => timers.now());
      start('a', 'a', 'b', 'a', 'b');
      await settle();
      expect(starts).toEqual(['a@0', 'b@0']);
      await timers.advance(100);
      expect(starts).toEqual(['a@0', 'b@0', 'a@100', 'b@100']);
      await timers.advance(100);
      expect(starts).toEqual(['a@0', 'b@0', 'a@100', 'b@100', 'a@200']);
      expect(await Promise.all(runs)).toEqual(['done', 'done', 'done', 'done', 'done']);
      expect(timers.pending()).toBe(0);
    });

    it('shares one bucket between invokes whose contexts give the same key value', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(TenantStage.Wrap, rateLimit({ minIntervalMs: 100, key: (context) => context.tenant.toLowerCase(), timers }));
      const { starts, start } = startTenants(registry, () => timers.now());
      start('Acme', 'ACME');
      await settle();
      expect(starts).toEqual(['Acme@0']);
      await timers.advance(100);
      expect(starts).toEqual(['Acme@0', 'ACME@100']);
    });
  });

  describe('maxKeys', () => {
    it('drops the least recently used idle bucket once more than maxKeys are idle', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(TenantStage.Wrap, rateLimit({ minIntervalMs: 1_000, key: (context) => context.tenant, maxKeys: 2, timers }));
      const { starts, start } = startTenants(registry, () => timers.now());
      // c's arrival drops a (least recently used); a's new bucket is full, and its arrival drops b, keeping c's spent one.
      start('a', 'b', 'c', 'a', 'c');
      await settle();
      expect(starts).toEqual(['a@0', 'b@0', 'c@0', 'a@0']);
      await timers.advance(1_000);
      expect(starts).toEqual(['a@0', 'b@0', 'c@0', 'a@0', 'c@1000']);
    });

    it('never drops a bucket with waiting activations', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(TenantStage.Wrap, rateLimit({ minIntervalMs: 1_000, key: (context) => context.tenant, maxKeys: 1, timers }));
      const { starts, start } = startTenants(registry, () => timers.now());
      // a waits from its second arrival on, so b and c count as the idle ones and a's bucket stays: its third call queues.
      start('a', 'a', 'b', 'c', 'a');
      await settle();
      expect(starts).toEqual(['a@0', 'b@0', 'c@0']);
      await timers.advance(2_000);
      expect(starts).toEqual(['a@0', 'b@0', 'c@0', 'a@1000', 'a@2000']);
    });

    it('keeps 1000 idle buckets by default', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(TenantStage.Wrap, rateLimit({ minIntervalMs: 1_000, key: (context) => context.tenant, timers }));
      const { starts, start } = startTenants(registry, () => timers.now());
      start(...Array.from({ length: 1_000 }, (_, index) => `t${index}`), 't0');
      await settle();
      // 1000 buckets fit: t0's is kept, so its second call waits for the interval.
      expect(starts.filter((started) => started.startsWith('t0@'))).toEqual(['t0@0']);
      // t0 waits, so its bucket is not idle; with t1000 and t1001 the idle ones number 1001, and t1, least recently used, is dropped.
      start('t1000', 't1001', 't1');
      await settle();
      expect(starts.filter((started) => started.startsWith('t1@'))).toEqual(['t1@0', 't1@0']);
    });
  });

  describe('a key function that fails', () => {
    it('passes what it throws through unchanged and takes no token', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      const noTenant = new Error('no tenant signed in');
      const key = (context: { readonly tenant: string }): string => {
        if (context.tenant === '') throw noTenant;
        return 'shared';
      };
      registry.add(TenantStage.Wrap, rateLimit({ minIntervalMs: 1_000, key, timers }));
      const { starts, runs, start } = startTenants(registry, () => timers.now());
      start('', 'a');
      await settle();
      expect(await runs[0]).toBe(noTenant);
      expect(starts).toEqual(['a@0']);
    });

    it.each([
      { returned: 7, described: '7' },
      { returned: undefined, described: 'undefined' },
      { returned: null, described: 'null' },
    ])('fails with ERR_INVALID_OPTIONS naming the stage, phase and handler when it returns $described', async ({ returned }) => {
      const registry = new MiddlewareRegistry();
      registry.add(TenantStage.Wrap, rateLimit({ minIntervalMs: 1_000, key: () => returned as unknown as string }));
      const { starts, runs, start } = startTenants(registry, () => 0);
      start('a');
      const error = await runs[0];
      expect(MiddlewareError.isInstance(error)).toBe(true);
      expect(error).toEqual(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          stage: 'tenant',
          phase: 'wrap',
          handler: 'rateLimit',
          message: expect.stringContaining('options.key() of Wrap handler "rateLimit" of stage "tenant" returned '),
        }),
      );
      expect((error as Error).message).toMatch(/it must return a string/);
      expect(starts).toEqual([]);
    });

    it('refuses a promise of a string: the key is needed before the activation waits', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(TenantStage.Wrap, rateLimit({ minIntervalMs: 1_000, key: (() => Promise.resolve('a')) as never }));
      const { runs, start } = startTenants(registry, () => 0);
      start('a');
      expect(await runs[0]).toEqual(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', phase: 'wrap', handler: 'rateLimit' }));
    });
  });

  describe('with a shared limiter and a key function', () => {
    it('consumes under the prefix and the escaped key value', async () => {
      const { limiter, calls } = grantingLimiter();
      const registry = new MiddlewareRegistry();
      registry.add(TenantStage.Wrap, rateLimit({ limiter, key: (context) => context.tenant, points: 2 }));
      const { runs, start } = startTenants(registry, () => 0);
      start('acme', 'a:b', 'a%3Ab', '', '\uD800x', '\uD83D\uDE00', 'x\uDC00');
      await Promise.all(runs);
      expect(calls).toEqual([
        'consume staged-middleware.rateLimit:acme 2',
        'consume staged-middleware.rateLimit:a%3Ab 2',
        'consume staged-middleware.rateLimit:a%253Ab 2',
        'consume staged-middleware.rateLimit: 2',
        'consume staged-middleware.rateLimit:%uD800x 2',
        'consume staged-middleware.rateLimit:\uD83D\uDE00 2',
        'consume staged-middleware.rateLimit:x%uDC00 2',
      ]);
    });

    it('passes what the key function throws through unchanged without calling the limiter', async () => {
      const { limiter, calls } = grantingLimiter();
      const noTenant = new Error('no tenant signed in');
      const registry = new MiddlewareRegistry();
      registry.add(
        TenantStage.Wrap,
        rateLimit({
          limiter,
          key: () => {
            throw noTenant;
          },
        }),
      );
      const { runs, start } = startTenants(registry, () => 0);
      start('a');
      expect(await runs[0]).toBe(noTenant);
      expect(calls).toEqual([]);
    });

    it('gives every key value a store key of its own, well formed and apart from the default key', () => {
      fc.assert(
        fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (first, second) => {
          const keys: string[] = [];
          const limiter: SharedLimiter = {
            consume(key) {
              keys.push(key);
              return Promise.resolve({});
            },
          };
          const handler = rateLimit({ limiter, key: (context: { readonly tenant: string }) => context.tenant });
          const signal = new AbortController().signal;
          const next = async function* next(): AsyncGenerator<string, void, undefined> {};
          for (const tenant of [first, second]) void handler({ tenant }, next, { stage: TenantStage, signal, handler: 'rateLimit' }).next();
          const [firstKey, secondKey] = keys as [string, string];
          expect(firstKey === secondKey).toBe(first === second);
          // encodeURIComponent throws for a lone surrogate, which a UTF-8 store would turn into U+FFFD.
          expect(() => encodeURIComponent(firstKey)).not.toThrow();
          expect(firstKey.startsWith('staged-middleware.rateLimit:')).toBe(true);
        }),
      );
    });
  });

  describe('options', () => {
    it.each([
      { options: { minIntervalMs: 10, key: 'tenant' }, problem: 'options.key must be a function' },
      { options: { minIntervalMs: 10, maxKeys: 5 }, problem: 'options.maxKeys needs options.key' },
      { options: { minIntervalMs: 10, key: () => 'a', maxKeys: 0 }, problem: 'options.maxKeys must be an integer of at least 1' },
      { options: { minIntervalMs: 10, key: () => 'a', maxKeys: 1.5 }, problem: 'options.maxKeys must be an integer of at least 1' },
      { options: { limiter: grantingLimiter().limiter, key: () => 'a', maxKeys: 5 }, problem: 'options.maxKeys is for a local limit' },
      { options: { limiter: grantingLimiter().limiter, key: 7 }, problem: 'options.key must be a non-empty string or a function' },
    ])('rejects $problem with ERR_INVALID_OPTIONS', ({ options, problem }) => {
      expect(() => rateLimit(options as never)).toThrow(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          phase: 'register',
          handler: 'rateLimit',
          message: expect.stringContaining(problem),
        }),
      );
    });
  });
});
