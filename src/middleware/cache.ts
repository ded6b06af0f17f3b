import type { Next, WrapRun } from '../types';
import type { ContextWrap } from './attempts';
import { invalidOption, optionalTimers, positiveInteger } from './failures';
import { LruStore } from './lru-store';
import { named } from './named';
import { systemTimers, type Timers } from './sleep';

/** What a cache store holds per key: the events of one inner chain run, the result last. */
export interface CacheEntry {
  /** Every event the inner chain yielded, in order; the last is its result. */
  readonly events: readonly unknown[];
  /** When the entry expires, in the clock of `options.timers` (ms); undefined for never. */
  readonly expiresAt: number | undefined;
}

/**
 * Where `cache` keeps entries. Either method may return a promise, so a
 * remote store (Redis, a KV service) plugs in; serialise `entry` as you like.
 */
export interface CacheStore {
  /** The entry for `key`, or undefined on a miss. */
  get(key: string): CacheEntry | undefined | PromiseLike<CacheEntry | undefined>;
  /** Stores an entry. */
  set(key: string, entry: CacheEntry): void | PromiseLike<void>;
  /** Removes an entry (used for expired ones when present). */
  delete?(key: string): void | PromiseLike<void>;
}

/** Options of {@link cache}. */
export interface CacheOptions<TContext> {
  /** The cache key of a context; `undefined` skips the cache for that invoke. */
  readonly key: (context: TContext) => string | undefined;
  /** Where entries live. Default: a new {@link LruStore} of `maxEntries` entries. */
  readonly store?: CacheStore;
  /** Entries older than this are misses. Default: no expiry. */
  readonly ttlMs?: number;
  /** Size of the default store. Default 500. */
  readonly maxEntries?: number;
  /** Clock for expiry. Default: the runtime's timers. */
  readonly timers?: Pick<Timers, 'now'>;
}

/**
 * Caches what the inner chain yields. On a miss it runs the inner chain,
 * streaming and recording its events, and stores them once the chain completes;
 * on a hit it replays them without calling `next()`. A chain that fails, is
 * aborted, or is closed early by the consumer is not stored. Events are stored
 * by reference in the default store: do not mutate events you receive.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` at once for bad options.
 * @example
 * ```ts
 * registry.add(ModelStage.Wrap, cache({ key: (context) => JSON.stringify(context.messages), ttlMs: 60_000 }));
 * ```
 */
export function cache<TContext>(options: CacheOptions<TContext>): ContextWrap<TContext, never> {
  if (options === null || typeof options !== 'object' || typeof options.key !== 'function') {
    throw invalidOption('cache', 'options.key must be a function (context) => string | undefined', options?.key);
  }
  const { key } = options;
  const ttlMs = options.ttlMs;
  if (ttlMs !== undefined && (typeof ttlMs !== 'number' || !(ttlMs > 0))) throw invalidOption('cache', 'options.ttlMs must be a number > 0', ttlMs);
  const store = options.store ?? new LruStore(positiveInteger('cache', 'options.maxEntries', options.maxEntries ?? 500));
  const storeMethods = store as Partial<Record<keyof CacheStore, unknown>>;
  if (typeof storeMethods.get !== 'function' || typeof storeMethods.set !== 'function' || !(storeMethods.delete === undefined || typeof storeMethods.delete === 'function')) {
    throw invalidOption('cache', 'options.store must have get(key), set(key, entry) and optionally delete(key)', store);
  }
  const clock = optionalTimers('cache', options.timers, ['now']) ?? systemTimers;

  const handler = async function* cache<TEvent>(context: TContext, next: Next<TContext, TEvent>, run: WrapRun) {
    const cacheKey = key(context);
    if (cacheKey === undefined) {
      yield* next(context);
      return;
    }
    const entry = await store.get(cacheKey);
    if (entry !== undefined) {
      if (entry.expiresAt === undefined || clock.now() < entry.expiresAt) {
        for (const event of entry.events) yield event as TEvent;
        return;
      }
      await store.delete?.(cacheKey);
    }
    const recorded: TEvent[] = [];
    for await (const event of next(context)) {
      recorded.push(event);
      yield event;
    }
    // The invoke ends with ERR_ABORTED when its signal is aborted, however the chain ended.
    if (run.signal.aborted) return;
    await store.set(cacheKey, { events: recorded, expiresAt: ttlMs === undefined ? undefined : clock.now() + ttlMs });
  };
  return named('cache', handler);
}
