import type { WrapRun } from '../types';
import type { AnyStageWrap } from './attempts';
import { checkOptionsObject, optionalTimers, positiveNumber } from './failures';
import { named } from './named';
import { sleep, systemTimers, type Timers } from './sleep';

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
export type RateLimitOptions = (MinIntervalLimit | TokenBucketLimit) & {
  /** Clock for the waits. Default: the runtime's timers. */
  readonly timers?: Timers;
};

/**
 * Delays calls of the inner chain so they keep to a rate. The limit is shared
 * by every invoke (and every registry) that uses the same handler instance, so
 * create one instance per quota. Waiting is signal-aware: an abort ends it at
 * once and gives the reserved slot back.
 *
 * Why a token bucket with debt: each caller reserves its slot when it arrives,
 * so waiters start in arrival order without a queue or a timer per slot.
 *
 * @throws MiddlewareError `ERR_ABORTED` when aborted while waiting.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` at once for bad options.
 * @example
 * ```ts
 * const providerQuota = rateLimit({ tokensPerInterval: 60, intervalMs: 60_000 });
 * registry.add(ModelStage.Wrap, providerQuota);
 * ```
 */
export function rateLimit(options: RateLimitOptions): AnyStageWrap<never> {
  checkOptionsObject('rateLimit', options, '{ minIntervalMs } or { tokensPerInterval, intervalMs }');
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

  /** Takes a token, possibly going into debt; returns how long the taker must wait. */
  const reserve = (): number => {
    const now = timers.now();
    tokens = Math.min(capacity, tokens + (now - updatedAt) * refillPerMs);
    updatedAt = now;
    tokens -= 1;
    return tokens >= 0 ? 0 : -tokens / refillPerMs;
  };

  const handler = async function* rateLimit<TContext, TEvent>(
    context: TContext,
    next: (context?: TContext) => AsyncGenerator<TEvent, void, undefined>,
    run: WrapRun,
  ) {
    const waitMs = reserve();
    if (waitMs > 0) {
      try {
        await sleep(waitMs, run.signal, { stage: run.stage.name, handler: run.handler }, timers);
      } catch (error) {
        tokens += 1;
        throw error;
      }
    }
    yield* next(context);
  };
  return named('rateLimit', handler) as AnyStageWrap<never>;
}
