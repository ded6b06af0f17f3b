import type { HandlerCall } from '../core/index';
import type { AnyStageWrap, ContextWrap } from './wrap-types';
import { checkOptionsObject, optionalTimers, positiveInteger, positiveNumber } from './options';
import { named } from './named';
import { systemTimers, type Timers } from '../util/timers';
import { sharedRateLimit, type SharedLimit } from './shared-limit';
import { throwIfAborted } from './sleep';
import { invalidOption } from './errors';
import { createTokenBucket, type TokenBucket } from './token-bucket';
import { keyValueOf, type RateLimitKey } from './rate-limit-key';

/** `rateLimit` by spacing: at least `minIntervalMs` between two starts. */
export interface MinIntervalLimit {
  /** Minimum time between two calls of the inner chain, in ms. */
  readonly minIntervalMs: number;
}

/** `rateLimit` by token bucket: bursts up to `tokensPerInterval`, refilled evenly over `intervalMs`. */
export interface TokenBucketLimit {
  /** Calls allowed per interval (also the largest burst). */
  readonly tokensPerInterval: number;
  /** The interval, in ms. */
  readonly intervalMs: number;
}

/** A local `rateLimit` per key value: one bucket for each user or tenant. */
export interface KeyedLimit<TContext> {
  /** The key value of a context (the user, the tenant): each key value has its own bucket. Default: one bucket for all. */
  readonly key?: RateLimitKey<TContext>;
  /** Most buckets kept with no activation waiting; the least recently used beyond it are dropped. Default 1000; only with `key`. */
  readonly maxKeys?: number;
}

/** Options of {@link rateLimit}; `TContext` is the context the `key` function reads. */
export type RateLimitOptions<TContext = never> = (
  ((MinIntervalLimit | TokenBucketLimit) & KeyedLimit<TContext>) | SharedLimit<TContext>
) & {
  /** Clock for the bucket (`now()`) and its waits (`setTimeout` / `clearTimeout`; a shared limiter needs only these two). Default: the runtime's timers. */
  readonly timers?: Pick<Timers, 'now' | 'setTimeout' | 'clearTimeout'>;
};

/**
 * Delays calls of the inner chain so they keep to a rate. The limit is shared
 * by every invoke (and every registry) that uses the same handler instance, so
 * create one instance per quota.
 *
 * A token bucket: `tokensPerInterval` tokens, full at first, refilled
 * continuously over `intervalMs`; an activation takes one token when it
 * starts (calls `next()`). Activations that find no token wait in one queue,
 * in arrival order; the head starts the moment a token is there, and only the
 * head has a timer. Waiting is signal-aware: an aborted waiter leaves the
 * queue at once (`ERR_ABORTED`) and the ones behind it move up, and an
 * activation aborted before it starts never keeps a token.
 *
 * With `{ limiter }` the quota lives in a {@link SharedLimiter} (Redis through
 * `rate-limiter-flexible`, say) and holds across every process using it:
 * each activation consumes `points` under `key` before it starts and waits
 * out every "quota spent" answer (`msBeforeNext`), signal-aware.
 *
 * With a `key` function the limit holds per key value (per user, per
 * tenant): locally one bucket per key value, at most `maxKeys` of them kept
 * idle; in a shared limiter one quota per key value, under
 * `staged-middleware.rateLimit:` and the escaped value.
 *
 * @throws MiddlewareError `ERR_ABORTED` when aborted before it starts.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` at once for bad options, and when `key` returns anything but a string.
 * @throws What `key` throws, unchanged.
 * @throws What a shared limiter's `consume` fails with (not a "quota spent" answer), unchanged.
 * @example
 * ```ts
 * const providerQuota = rateLimit({ tokensPerInterval: 60, intervalMs: 60_000 });
 * registry.add(ModelStage.Wrap, providerQuota);
 * ```
 */
export function rateLimit<TContext>(
  options: RateLimitOptions<TContext> & { readonly key: RateLimitKey<TContext> },
): ContextWrap<TContext, never>;
export function rateLimit(options: RateLimitOptions): AnyStageWrap<never>;
export function rateLimit(options: RateLimitOptions): AnyStageWrap<never> {
  checkOptionsObject('rateLimit', options, '{ minIntervalMs }, { tokensPerInterval, intervalMs } or { limiter, key?, points? }');
  if ('limiter' in options) {
    const waits = optionalTimers('rateLimit', options.timers, ['setTimeout', 'clearTimeout']) ?? systemTimers;
    return sharedRateLimit(options, waits);
  }
  const timers = optionalTimers('rateLimit', options.timers, ['now', 'setTimeout', 'clearTimeout']) ?? systemTimers;
  let capacity: number;
  let intervalMs: number;
  if ('minIntervalMs' in options) {
    // A bucket of one token refilled every interval spaces starts by exactly the interval.
    capacity = 1;
    intervalMs = positiveNumber('rateLimit', 'options.minIntervalMs', options.minIntervalMs);
  } else {
    capacity = positiveNumber('rateLimit', 'options.tokensPerInterval', (options as TokenBucketLimit).tokensPerInterval);
    intervalMs = positiveNumber('rateLimit', 'options.intervalMs', (options as TokenBucketLimit).intervalMs);
  }
  if (options.key === undefined) {
    if (options.maxKeys !== undefined)
      throw invalidOption('rateLimit', 'options.maxKeys needs options.key, a function of the context', options.maxKeys);
    const bucket = createTokenBucket(capacity, intervalMs, timers);
    return named(
      'rateLimit',
      takingFrom(() => bucket),
    );
  }
  const key = options.key;
  if (typeof key !== 'function') throw invalidOption('rateLimit', 'options.key must be a function (context) => string', key);
  const maxKeys = positiveInteger('rateLimit', 'options.maxKeys', options.maxKeys ?? DEFAULT_MAX_KEYS);
  // A Map keeps insertion order: re-inserting a used bucket makes its first entries the least recently used.
  const buckets = new Map<string, TokenBucket>();
  const bucketOf = (context: unknown, run: HandlerCall): TokenBucket => {
    const value = keyValueOf(key as RateLimitKey<unknown>, context, run);
    let bucket = buckets.get(value);
    if (bucket !== undefined) {
      buckets.delete(value);
      buckets.set(value, bucket);
      return bucket;
    }
    bucket = createTokenBucket(capacity, intervalMs, timers);
    buckets.set(value, bucket);
    if (buckets.size > maxKeys) dropIdle(buckets, maxKeys, bucket);
    return bucket;
  };
  return named('rateLimit', takingFrom(bucketOf));
}

/** Most idle buckets a keyed `rateLimit` keeps when `maxKeys` is left out. */
const DEFAULT_MAX_KEYS = 1000;

/** Drops the least recently used idle buckets, never `kept`, until at most `maxKeys` idle ones remain (MW-277). */
function dropIdle(buckets: Map<string, TokenBucket>, maxKeys: number, kept: TokenBucket): void {
  let idle = 0;
  for (const bucket of buckets.values()) if (!bucket.busy) idle += 1;
  for (const [value, bucket] of buckets) {
    if (idle <= maxKeys) return;
    if (bucket.busy || bucket === kept) continue;
    buckets.delete(value);
    idle -= 1;
  }
}

/** The handler of a local `rateLimit`: each activation takes a token from the bucket of its context before it starts. */
function takingFrom(bucketOf: (context: unknown, run: HandlerCall) => TokenBucket): AnyStageWrap<never> {
  return async function* rateLimit<TContext, TEvent>(
    context: TContext,
    next: (context?: TContext) => AsyncGenerator<TEvent, void, undefined>,
    run: HandlerCall,
  ) {
    const waiter = { stage: run.stage.name, handler: run.handler };
    throwIfAborted(run.signal, waiter);
    const bucket = bucketOf(context, run);
    const waiting = bucket.take(run.signal, waiter);
    if (waiting !== undefined) {
      await waiting;
      // Aborted after the token was given, before this activation resumed to start: the token goes back.
      if (run.signal.aborted) {
        bucket.giveBack();
        throwIfAborted(run.signal, waiter);
      }
    }
    yield* next(context);
  };
}
