import { isThenable } from '../util/thenable';
import type { Next, HandlerCall } from '../core/index';
import type { ContextWrap } from './wrap-types';
import { invalidOption, notACacheEntry } from './errors';
import { optionalFunction, optionalTimers, positiveInteger } from './options';
import type { CacheEntry, CacheStore } from './cache-store';
import { LruStore } from './lru-store';
import { named } from './named';
import { systemTimers, type Timers } from '../util/timers';
import { untilAborted } from './sleep';
import { isObject } from '../util/is-object';

/** What `onError` learns about a failed store call. */
export interface CacheErrorInfo {
  /** The store method that threw or rejected. */
  readonly operation: 'get' | 'set' | 'delete';
  /** The cache key it was called with. */
  readonly key: string;
  /** The stage and handler. */
  readonly run: HandlerCall;
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
  /** Clock of `expiresAt` (`wallClock()`, ms since the Unix epoch, so a shared store expires alike everywhere). Default: `Date.now()`. */
  readonly timers?: Pick<Timers, 'wallClock'>;
  /**
   * Called once per failed store call; the call goes on without the cache.
   * Default: one `console.warn` line per failure. A throw ends the handler with that error.
   */
  readonly onError?: (error: unknown, info: CacheErrorInfo) => void;
}

/** What follows each kind of store failure, for the default warning. */
const CONSEQUENCES = {
  get: 'the call went to the inner chain uncached',
  set: 'the result was not stored',
  delete: 'the expired entry stays in the store',
} as const;

/**
 * Whether an answer of `get` other than a miss (`null`, `undefined`), typed as an entry but outside data, is one
 * `cache` can replay: `events` an array, `expiresAt` absent, null or a finite number (null is what some serialisers
 * make of undefined). A primitive has no `events` array, so it is no entry.
 */
function isEntry(answer: CacheEntry): boolean {
  const { events, expiresAt } = answer as { events?: unknown; expiresAt?: unknown };
  return Array.isArray(events) && (expiresAt === undefined || expiresAt === null || Number.isFinite(expiresAt));
}

/**
 * The default `onError`: one warning line, naming the operation, stage and
 * handler but never the key or the events, which may hold user data.
 */
function warnStoreFailure(error: unknown, { operation, run }: CacheErrorInfo): void {
  const message = error instanceof Error ? error.message : String(error);
  console.warn(
    `[staged-middleware] cache: store.${operation}() failed in Wrap handler "${run.handler}" of stage "${run.stage.name}", so ${CONSEQUENCES[operation]}: ${message}. Pass options.onError to handle store failures yourself.`,
  );
}

/**
 * Caches what the inner chain yields. On a miss it runs the inner chain,
 * streaming and recording its events, and stores them once the chain completes;
 * on a hit it replays them without calling `next()`. A chain that fails, is
 * aborted, or is closed early by the consumer is not stored. Events are stored
 * by reference in the default store: do not mutate events you receive.
 *
 * The store never fails or blocks the call: a store method that throws or
 * rejects is reported through `onError` and taken as a miss (`get`) or as not
 * stored (`set`), and a store promise is awaited only until the signal aborts.
 *
 * @throws MiddlewareError `ERR_ABORTED` when the signal aborts while it waits for the store.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` at once for bad options.
 * @example
 * ```ts
 * registry.add(ModelStage.Wrap, cache({ key: (context) => JSON.stringify(context.messages), ttlMs: 60_000 }));
 * ```
 */
export function cache<TContext>(options: CacheOptions<TContext>): ContextWrap<TContext, never> {
  if (!isObject(options) || typeof options.key !== 'function') {
    throw invalidOption(
      'cache',
      'options.key must be a function (context) => string | undefined',
      (options as { readonly key?: unknown } | null | undefined)?.key,
    );
  }
  const { key } = options;
  const ttlMs = options.ttlMs;
  if (ttlMs !== undefined && (typeof ttlMs !== 'number' || !(ttlMs > 0)))
    throw invalidOption('cache', 'options.ttlMs must be a number > 0', ttlMs);
  const store = options.store ?? new LruStore(positiveInteger('cache', 'options.maxEntries', options.maxEntries ?? 500));
  const storeMethods = store as Partial<Record<keyof CacheStore, unknown>>;
  if (
    typeof storeMethods.get !== 'function' ||
    typeof storeMethods.set !== 'function' ||
    !(storeMethods.delete === undefined || typeof storeMethods.delete === 'function')
  ) {
    throw invalidOption('cache', 'options.store must have get(key), set(key, entry) and optionally delete(key)', store);
  }
  const clock = optionalTimers('cache', options.timers, ['wallClock']) ?? systemTimers;
  const onError = optionalFunction('cache', 'onError', options.onError) ?? warnStoreFailure;

  /** One store call: a promise is awaited unless the signal aborts first; a failure is reported and gives `undefined`. */
  const callStore = async <T>(
    operation: CacheErrorInfo['operation'],
    cacheKey: string,
    run: HandlerCall,
    call: () => T | PromiseLike<T>,
  ): Promise<T | undefined> => {
    let produced: T | PromiseLike<T>;
    try {
      produced = call();
    } catch (error) {
      onError(error, { operation, key: cacheKey, run });
      return undefined;
    }
    if (!isThenable(produced)) return produced;
    // The store's failure is settled into a value, so only the abort of the wait can reject here.
    const settled = Promise.resolve(produced).then(
      (value) => ({ failed: false as const, value }),
      (error: unknown) => ({ failed: true as const, error }),
    );
    const outcome = await untilAborted(settled, run.signal, { stage: run.stage.name, handler: run.handler });
    if (!outcome.failed) return outcome.value;
    onError(outcome.error, { operation, key: cacheKey, run });
    return undefined;
  };

  /** Reports an answer of `get` that is not an entry as a failed `get`; the call goes on as a miss. */
  const reportNotEntry = (answer: unknown, cacheKey: string, run: HandlerCall): undefined => {
    onError(notACacheEntry(answer, run), { operation: 'get', key: cacheKey, run });
    return undefined;
  };

  const handler = async function* cache<TEvent>(context: TContext, next: Next<TContext, TEvent>, run: HandlerCall) {
    const cacheKey = key(context);
    if (cacheKey === undefined) {
      yield* next(context);
      return;
    }
    const answer = await callStore('get', cacheKey, run, () => store.get(cacheKey));
    let entry: CacheEntry | undefined;
    if (answer === null || answer === undefined || isEntry(answer)) entry = answer ?? undefined;
    else reportNotEntry(answer, cacheKey, run);
    if (entry !== undefined) {
      // null is what some serialisers make of an undefined expiresAt (MW-180).
      const expiresAt: number | null | undefined = entry.expiresAt;
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a store's serialiser may give null, whatever the type says
      if (expiresAt === undefined || expiresAt === null || clock.wallClock() < expiresAt) {
        for (const event of entry.events) yield event as TEvent;
        return;
      }
      // eslint-disable-next-line @typescript-eslint/unbound-method -- read once, and called with the store as `this`
      const remove = store.delete;
      if (remove !== undefined) await callStore('delete', cacheKey, run, () => remove.call(store, cacheKey));
    }
    const recorded: TEvent[] = [];
    for await (const event of next(context)) {
      recorded.push(event);
      yield event;
    }
    // The invoke ends with ERR_ABORTED when its signal is aborted, however the chain ended.
    if (run.signal.aborted) return;
    await callStore('set', cacheKey, run, () =>
      store.set(cacheKey, { events: recorded, expiresAt: ttlMs === undefined ? undefined : clock.wallClock() + ttlMs }, ttlMs),
    );
  };
  return named('cache', handler);
}
