import type { HandlerCall } from '../core/index';
import type { AnyStageWrap } from './wrap-types';
import { checkOptionsObject, optionalTimers, positiveNumber } from './options';
import { named } from './named';
import { schedule, systemTimers, type Timers } from '../util/timers';
import { sharedRateLimit, type SharedLimit } from './shared-limit';
import { throwIfAborted, untilAborted } from './sleep';
import type { Waiter } from './errors';

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

/** Options of {@link rateLimit}. */
export type RateLimitOptions = (MinIntervalLimit | TokenBucketLimit | SharedLimit) & {
  /** Clock for the bucket (`now()`) and its waits (`setTimeout` / `clearTimeout`; a shared limiter needs only these two). Default: the runtime's timers. */
  readonly timers?: Pick<Timers, 'now' | 'setTimeout' | 'clearTimeout'>;
};

/**
 * Token shortfall treated as none, so a timer computed to fire exactly when
 * the token is due is not re-armed over a rounding error of the refill.
 */
const ROUNDING = 1e-9;

/** An activation waiting for its token. */
interface Queued {
  /** Ends the wait: the activation has been given its token. */
  readonly start: () => void;
}

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
 * @throws MiddlewareError `ERR_ABORTED` when aborted before it starts.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` at once for bad options.
 * @throws What a shared limiter's `consume` fails with (not a "quota spent" answer), unchanged.
 * @example
 * ```ts
 * const providerQuota = rateLimit({ tokensPerInterval: 60, intervalMs: 60_000 });
 * registry.add(ModelStage.Wrap, providerQuota);
 * ```
 */
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
  const refillPerMs = capacity / intervalMs;
  let tokens = capacity;
  let updatedAt = timers.now();
  // A Set keeps insertion order and deletes in O(1): the queue, head first.
  const queue = new Set<Queued>();
  let cancelTimer: (() => void) | undefined;

  const refill = (): void => {
    const now = timers.now();
    tokens = Math.min(capacity, tokens + (now - updatedAt) * refillPerMs);
    updatedAt = now;
  };
  /** Starts queued activations from the head while tokens are there, then arms the one timer for the next head. */
  const serve = (): void => {
    cancelTimer?.();
    cancelTimer = undefined;
    if (queue.size === 0) return;
    refill();
    for (const queued of queue) {
      if (tokens < 1 - ROUNDING) {
        cancelTimer = schedule(serve, (1 - tokens) / refillPerMs, timers);
        return;
      }
      tokens -= 1;
      queue.delete(queued);
      queued.start();
    }
  };
  /** Puts back the token of an activation aborted between being given it and starting. */
  const giveBack = (): void => {
    refill();
    tokens = Math.min(capacity, tokens + 1);
    serve();
  };
  /** Waits in the queue until given a token; an abort leaves the queue (or gives the token back) at once. */
  const wait = (signal: AbortSignal, waiter: Waiter): Promise<void> => {
    let queued: Queued | undefined;
    const given = new Promise<void>((resolve) => {
      queued = { start: resolve };
    });
    queue.add(queued as Queued);
    if (queue.size === 1) serve();
    return untilAborted(given, signal, waiter, () => {
      if (queue.delete(queued as Queued)) serve();
      else giveBack();
    });
  };

  const handler = async function* rateLimit<TContext, TEvent>(
    context: TContext,
    next: (context?: TContext) => AsyncGenerator<TEvent, void, undefined>,
    run: HandlerCall,
  ) {
    const waiter = { stage: run.stage.name, handler: run.handler };
    throwIfAborted(run.signal, waiter);
    refill();
    if (queue.size === 0 && tokens >= 1 - ROUNDING) tokens -= 1;
    else {
      await wait(run.signal, waiter);
      // Aborted after the token was given, before this activation resumed to start: the token goes back.
      if (run.signal.aborted) {
        giveBack();
        throwIfAborted(run.signal, waiter);
      }
    }
    yield* next(context);
  };
  return named('rateLimit', handler);
}
