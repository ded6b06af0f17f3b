/**
 * One cache and one provider quota shared by every agent process that
 * connects to the same Redis: the "Shared stores" section of docs/middleware.md, checked
 * by the type checker and run by `npm run test:integration` against a real
 * Redis server.
 *
 * Your own code takes these names from 'staged-middleware/agent' and 'staged-middleware/middleware'.
 */
import KeyvRedis, { createClient } from '@keyv/redis';
import Keyv from 'keyv';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { MiddlewareRegistry } from '../src/core/index';
import { InvokeModelStage } from '../src/agent/index';
import { cache, rateLimit, type CacheEntry } from '../src/middleware/index';

/** Adds a Redis-backed cache and rate limit for model calls; resolves to the function that closes both connections. */
export async function useSharedStores(registry: MiddlewareRegistry, redisUrl: string): Promise<() => Promise<void>> {
  // Keyv is a cache store as it is: entries are JSON in Redis, which drops them after ttlMs.
  const store = new Keyv<CacheEntry>(new KeyvRedis(redisUrl), { namespace: 'model-cache' });
  // 60 model calls a minute for all processes together, counted in Redis under "quota:openai".
  const client = createClient({ url: redisUrl });
  await client.connect();
  const limiter = new RateLimiterRedis({ storeClient: client, useRedisPackage: true, keyPrefix: 'quota', points: 60, duration: 60 });

  // Registered first, so outermost: a cache hit takes nothing from the quota.
  registry.add(InvokeModelStage.Wrap, cache({ key: (context) => JSON.stringify(context.messages), store, ttlMs: 10 * 60_000 }));
  registry.add(InvokeModelStage.Wrap, rateLimit({ limiter, key: 'openai' }));
  return async () => {
    await store.disconnect();
    await client.close();
  };
}
