/**
 * `cache` and `rateLimit` over a real Redis server shared by separate
 * Node.js processes, as agent processes behind a load balancer share them
 * (MW-091, MW-180, MW-181, MW-279): Keyv with `@keyv/redis` as the cache store,
 * `rate-limiter-flexible`'s `RateLimiterRedis` as the limiter, and
 * `examples/shared-stores.ts` as docs/middleware.md shows it.
 */
import KeyvRedis, { createClient } from '@keyv/redis';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import Keyv from 'keyv';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStage, MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { rateLimit, type CacheEntry } from '../../src/middleware/index';
import { root } from '../readme-blocks';
import { startRedis, type RedisServer } from './redis-server';

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  // Not started when beforeAll failed.
  await (redis as RedisServer | undefined)?.stop();
});

/** A worker process (`worker.ts`) in one mode, not yet asked for its result. */
interface Worker {
  /** Resolves once the worker printed `ready` (mode `rate`). */
  readonly ready: Promise<void>;
  /** Sends a line to its standard input. */
  readonly send: (line: string) => void;
  /** Resolves to the JSON it printed last; rejects with its stderr when it fails. */
  readonly result: Promise<Record<string, unknown>>;
}

/** Starts `worker.ts` in `mode` with the server's URL and `options`. */
function worker(mode: string, options: Record<string, unknown>): Worker {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/integration/worker.ts', mode, JSON.stringify({ url: redis.url, ...options })],
    { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const lines: string[] = [];
  let signalReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (signalReady = resolve));
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    if (line === 'ready') signalReady();
  });
  const result = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.once('close', (code) => {
      if (code === 0) resolve(JSON.parse(lines.at(-1) ?? 'null') as Record<string, unknown>);
      else reject(new Error(`worker ${mode} exited with ${String(code)}:\n${stderr}`));
    });
  });
  return { ready, send: (line) => void child.stdin.write(`${line}\n`), result };
}

/** Runs one worker to the end. */
function runWorker(mode: string, options: Record<string, unknown>): Promise<Record<string, unknown>> {
  const started = worker(mode, options);
  started.send('');
  return started.result;
}

const events = [
  { type: 'text', text: 'Bonjour ✓' },
  { type: 'done', text: 'Bonjour', usage: { input: 3, output: 1 }, list: [1, null, true] },
];

describe('cache with a Keyv store over Redis', () => {
  describe('shared by two processes', () => {
    it("replays in the second process the events the first one's inner chain yielded, without running it", async () => {
      const options = { namespace: 'hits', key: 'question-1', ttlMs: 60_000, events };
      const first = await runWorker('cache', options);
      const second = await runWorker('cache', { ...options, events: [{ type: 'done', text: 'never' }] });
      expect([first, second]).toEqual([
        { events, terminalCalls: 1 },
        { events, terminalCalls: 0 },
      ]);
    });

    it('stores expiresAt as wall-clock time, ms since the Unix epoch, with Redis expiring the key after ttlMs', async () => {
      const before = Date.now();
      await runWorker('cache', { namespace: 'clock', key: 'question-2', ttlMs: 60_000, events });
      const after = Date.now();
      const keyv = new Keyv<CacheEntry>(new KeyvRedis(redis.url), { namespace: 'clock' });
      const stored = await keyv.get('question-2');
      const client = createClient({ url: redis.url });
      await client.connect();
      // Keyv and @keyv/redis decide how the namespace prefixes the key: find it rather than spell it.
      const keys = await client.keys('*question-2*');
      const redisTtl = await client.pTTL(keys[0] ?? 'missing');
      await Promise.all([keyv.disconnect(), client.close()]);
      const expiresAt = stored?.expiresAt ?? 0;
      expect([
        stored?.events,
        expiresAt >= before + 60_000 && expiresAt <= after + 60_000,
        keys.length,
        redisTtl > 0 && redisTtl <= 60_000,
      ]).toEqual([events, true, 1, true]);
    });

    it('misses in the second process an entry the first wrote once it expired on the wall clock, and replaces it', async () => {
      const options = { namespace: 'expiry', key: 'question-3', ttlMs: 60_000 };
      await runWorker('cache', { ...options, events: [{ type: 'done', text: 'old' }] });
      // The second process's wall clock is two minutes on: the entry, still in Redis, has expired for it.
      const later = await runWorker('cache', { ...options, clockOffsetMs: 120_000, events: [{ type: 'done', text: 'new' }] });
      const now = await runWorker('cache', { ...options, events: [{ type: 'done', text: 'never' }] });
      expect([later, now]).toEqual([
        { events: [{ type: 'done', text: 'new' }], terminalCalls: 1 },
        { events: [{ type: 'done', text: 'new' }], terminalCalls: 0 },
      ]);
    });

    it('misses in the second process an entry Redis dropped after the ttlMs the first passed to the store', async () => {
      const options = { namespace: 'dropped', key: 'question-4', ttlMs: 300 };
      await runWorker('cache', { ...options, events: [{ type: 'done', text: 'old' }] });
      await new Promise((resolve) => setTimeout(resolve, 600));
      const later = await runWorker('cache', { ...options, events: [{ type: 'done', text: 'new' }] });
      expect(later).toEqual({ events: [{ type: 'done', text: 'new' }], terminalCalls: 1 });
    });
  });
});

describe('rateLimit with a RateLimiterRedis', () => {
  describe('shared by two processes', () => {
    it('together never start more calls in one window than the limiter allows', async () => {
      const points = 3;
      const durationSeconds = 1;
      const options = { keyPrefix: 'two-processes', points, durationSeconds, calls: 6 };
      const workers = [worker('rate', options), worker('rate', options)];
      await Promise.all(workers.map((started) => started.ready));
      for (const started of workers) started.send('go');
      const starts = (await Promise.all(workers.map((started) => started.result)))
        .flatMap((result) => result.starts as number[])
        .sort((a, b) => a - b);
      // Every call of a window starts within a burst at the window's opening (the first grant opens it, the
      // waiters retry when it closes), and windows open at least a window apart: so any points + 1 starts in a
      // row span at least one window, less the spread of a burst, which stays far below half a window.
      const windowMs = durationSeconds * 1000;
      const tooClose = starts.slice(points).filter((start, index) => start - (starts[index] as number) < windowMs / 2);
      const windows = 12 / points;
      expect([
        starts.length,
        tooClose,
        (starts.at(-1) as number) - (starts[0] as number) >= (windows - 1) * windowMs - windowMs / 2,
      ]).toEqual([12, [], true]);
    });
  });

  describe('while a call waits for the quota', () => {
    it('ends the wait at once with ERR_ABORTED when the signal aborts', async () => {
      const client = createClient({ url: redis.url });
      await client.connect();
      const limiter = new RateLimiterRedis({ storeClient: client, useRedisPackage: true, keyPrefix: 'abort', points: 1, duration: 60 });
      const Stage = createStage<Record<string, never>, string>('reply');
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, rateLimit({ limiter, key: 'provider' }));
      let terminalCalls = 0;
      const terminal = async function* terminal(): AsyncGenerator<string> {
        terminalCalls += 1;
        yield 'ok';
      };
      expect(await registry.run(Stage, {}, terminal)).toBe('ok');
      const controller = new AbortController();
      const waiting = registry.run(Stage, {}, terminal, { signal: controller.signal }).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 200));
      controller.abort('user left');
      const error = await waiting;
      const consumed = await limiter.get('provider');
      await client.close();
      // The waiting call consumed once, was refused, and never started: 2 points counted, 1 call made.
      expect([MiddlewareError.isInstance(error) && error.code, terminalCalls, consumed?.consumedPoints]).toEqual(['ERR_ABORTED', 1, 2]);
    });
  });
});

describe('rateLimit with a RateLimiterRedis and a key function', () => {
  describe('one quota per tenant', () => {
    it('keeps each key value under its own escaped store key, so one tenant spending its quota leaves the others theirs', async () => {
      const client = createClient({ url: redis.url });
      await client.connect();
      const limiter = new RateLimiterRedis({ storeClient: client, useRedisPackage: true, keyPrefix: 'tenants', points: 1, duration: 60 });
      const Stage = createStage<{ readonly tenant: string }, string>('reply');
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, rateLimit({ limiter, key: (context) => context.tenant }));
      const terminal = async function* terminal(context: { readonly tenant: string }): AsyncGenerator<string> {
        yield `ok ${context.tenant}`;
      };
      // "a:b" would read as tenant "a", quota "b" if it were not escaped; a lone surrogate would become U+FFFD in Redis.
      const tenants = ['acme', 'globex', 'a:b', 'a%3Ab', '\uD800', '\uDBFF'];
      const started = await Promise.all(tenants.map((tenant) => registry.run(Stage, { tenant }, terminal)));
      const controller = new AbortController();
      const waiting = registry.run(Stage, { tenant: 'acme' }, terminal, { signal: controller.signal }).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 200));
      controller.abort('user left');
      const error = await waiting;
      const keys = (await client.keys('tenants:*')).sort();
      const acme = await limiter.get('staged-middleware.rateLimit:acme');
      await client.close();
      expect([started, MiddlewareError.isInstance(error) && error.code, acme?.consumedPoints, keys]).toEqual([
        tenants.map((tenant) => `ok ${tenant}`),
        'ERR_ABORTED',
        2,
        [
          'tenants:staged-middleware.rateLimit:a%253Ab',
          'tenants:staged-middleware.rateLimit:a%3Ab',
          'tenants:staged-middleware.rateLimit:acme',
          'tenants:staged-middleware.rateLimit:globex',
          'tenants:staged-middleware.rateLimit:%uD800',
          'tenants:staged-middleware.rateLimit:%uDBFF',
        ].sort(),
      ]);
    });
  });
});

describe('useSharedStores of docs/middleware.md', () => {
  it('serves the second process from the cache the first filled, without a model call', async () => {
    const first = await runWorker('example', { question: 'Capital of France?' });
    const second = await runWorker('example', { question: 'Capital of France?' });
    const types = ['messageStart', 'textDelta', 'messageStop', 'modelResult'];
    expect([first, second]).toEqual([
      { events: types, modelCalls: 1 },
      { events: types, modelCalls: 0 },
    ]);
  });
});
