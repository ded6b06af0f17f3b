/**
 * One agent process of the shared-store tests, started by them as
 * `node --import tsx test/integration/worker.ts <mode> <JSON options>`; it
 * prints one JSON line with what it observed. Modes:
 *
 * - `cache`: one invoke through `cache` over Keyv and Redis, with `key`,
 *   `ttlMs` and a wall clock `clockOffsetMs` ahead of `Date.now()`; the
 *   terminal yields `events`. Prints the events delivered and the terminal calls.
 * - `rate`: prints `ready`, waits for `go` on standard input, then runs
 *   `calls` invokes at once through `rateLimit` over a `RateLimiterRedis` of
 *   `points` per `durationSeconds`. Prints when each call started (`Date.now()`).
 * - `example`: one model call of an agent context through the
 *   `useSharedStores` of docs/middleware.md. Prints the events delivered and the model calls made.
 */
import KeyvRedis, { createClient } from '@keyv/redis';
import Keyv from 'keyv';
import { createInterface } from 'node:readline';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { useSharedStores } from '../../examples/shared-stores';
import { createStage, MiddlewareRegistry } from '../../src/core/index';
import { createModelContext, InvokeModelStage, modelTerminal } from '../../src/agent/index';
import { ScriptedModel, textTurn } from '../../src/testing/index';
import { cache, rateLimit, type CacheEntry } from '../../src/middleware/index';

const [mode, json] = process.argv.slice(2);
const options = JSON.parse(json ?? '{}') as Record<string, unknown>;
const url = String(options.url);

/** A stage whose events are JSON values and whose last event is the result. */
const ReplyStage = createStage<Record<string, never>, unknown>('reply');

async function cached(): Promise<unknown> {
  const store = new Keyv<CacheEntry>(new KeyvRedis(url), { namespace: String(options.namespace) });
  const offset = Number(options.clockOffsetMs ?? 0);
  const registry = new MiddlewareRegistry();
  registry.add(
    ReplyStage.Wrap,
    cache({
      key: () => String(options.key),
      store,
      ttlMs: Number(options.ttlMs),
      timers: { wallClock: () => Date.now() + offset },
      onError: (error) => {
        throw error;
      },
    }),
  );
  let terminalCalls = 0;
  const events: unknown[] = [];
  for await (const event of registry.invoke(ReplyStage, {}, async function* terminal() {
    terminalCalls += 1;
    yield* options.events as unknown[];
  })) {
    events.push(event);
  }
  await store.disconnect();
  return { events, terminalCalls };
}

async function rated(): Promise<unknown> {
  const client = createClient({ url });
  await client.connect();
  const limiter = new RateLimiterRedis({
    storeClient: client,
    useRedisPackage: true,
    keyPrefix: String(options.keyPrefix),
    points: Number(options.points),
    duration: Number(options.durationSeconds),
  });
  const registry = new MiddlewareRegistry();
  registry.add(ReplyStage.Wrap, rateLimit({ limiter, key: 'provider' }));
  console.log('ready');
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) if (line === 'go') break;
  lines.close();
  const starts: number[] = [];
  await Promise.all(
    Array.from({ length: Number(options.calls) }, () =>
      registry.run(ReplyStage, {}, async function* terminal() {
        starts.push(Date.now());
        yield 'ok';
      }),
    ),
  );
  await client.close();
  return { starts };
}

async function example(): Promise<unknown> {
  const registry = new MiddlewareRegistry();
  const close = await useSharedStores(registry, url);
  const model = new ScriptedModel([textTurn('Paris.')]);
  const messages = [{ role: 'user' as const, content: [{ type: 'text' as const, text: String(options.question) }] }];
  const context = createModelContext({ model, messages, systemPrompt: 'Answer briefly.', toolSpecs: [], invocationState: {} });
  const events: string[] = [];
  for await (const event of registry.invoke(InvokeModelStage, context, modelTerminal)) events.push(event.type);
  await close();
  return { events, modelCalls: model.calls.length };
}

const modes: Record<string, () => Promise<unknown>> = { cache: cached, rate: rated, example };
const run = modes[mode ?? ''];
if (run === undefined) throw new Error(`Unknown mode ${String(mode)}: use ${Object.keys(modes).join(', ')}.`);
console.log(JSON.stringify(await run()));
