import type { HandlerCall } from '../core/index';
import { isThenable } from '../util/thenable';
import type { Timers } from '../util/timers';
import type { AnyStageWrap } from './wrap-types';
import { invalidOption, type Waiter } from './errors';
import { named } from './named';
import { positiveInteger } from './options';
import { sleep, throwIfAborted, untilAborted } from './sleep';
import { isObject } from '../util/is-object';
import { keyValueOf, sharedStoreKey, type RateLimitKey } from './rate-limit-key';

/**
 * A rate limiter whose quota lives outside this process (in Redis, say), so
 * every process using it keeps one rate together. `rate-limiter-flexible`'s
 * `RateLimiterRedis` (and its other store limiters) satisfy it as they are.
 */
export interface SharedLimiter {
  /**
   * Takes `points` from the quota of `key`. Resolves when they were granted;
   * rejects with an object whose `msBeforeNext` says how long to wait when the
   * quota is spent, and with anything else when the limiter itself failed.
   */
  consume(key: string, points: number): PromiseLike<unknown>;
  /** Gives `points` back to the quota of `key`; called for points granted to a caller that was aborted before it started. */
  reward?(key: string, points: number): unknown;
}

/** `rateLimit` by a shared limiter: the rate is the limiter's, held across every process that uses its quota. */
export interface SharedLimit<TContext = never> {
  /** The limiter, e.g. `new RateLimiterRedis({ storeClient, points: 60, duration: 60 })`. */
  readonly limiter: SharedLimiter;
  /** The quota's key in the limiter, or a function of the context giving one quota per key value (per user, per tenant). Default `'staged-middleware.rateLimit'`. */
  readonly key?: string | RateLimitKey<TContext>;
  /** Points one call takes. Default 1. */
  readonly points?: number;
}

/** The key `rateLimit` consumes under when `SharedLimit.key` is left out. */
const DEFAULT_LIMITER_KEY = 'staged-middleware.rateLimit';

/** What one `consume` came to. */
type Answer = { readonly granted: true } | { readonly granted: false; readonly waitMs: number } | { readonly failed: unknown };

/** The wait a rejection asks for, when it is the limiter's "quota spent" answer rather than a failure. */
function waitAskedFor(rejection: unknown): number | undefined {
  if (typeof rejection !== 'object' || rejection === null) return undefined;
  const waitMs = (rejection as { msBeforeNext?: unknown }).msBeforeNext;
  // At least 1 ms: a limiter answering 0 again and again must not spin the event loop.
  return typeof waitMs === 'number' && !Number.isNaN(waitMs) ? Math.max(1, waitMs) : undefined;
}

/**
 * The handler of `rateLimit({ limiter })`: each activation consumes its
 * points before it calls `next()`, waiting out every "quota spent" answer.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` at once for bad options.
 */
export function sharedRateLimit(options: SharedLimit, timers: Pick<Timers, 'setTimeout' | 'clearTimeout'>): AnyStageWrap<never> {
  const { limiter } = options;
  if (
    !isObject(limiter) ||
    typeof limiter.consume !== 'function' ||
    !(limiter.reward === undefined || typeof limiter.reward === 'function')
  ) {
    throw invalidOption('rateLimit', 'options.limiter must have consume(key, points) and optionally reward(key, points)', limiter);
  }
  const key = options.key ?? DEFAULT_LIMITER_KEY;
  if (typeof key !== 'function' && (typeof key !== 'string' || key === ''))
    throw invalidOption('rateLimit', 'options.key must be a non-empty string or a function (context) => string', key);
  const points = positiveInteger('rateLimit', 'options.points', options.points ?? 1);
  if ((options as { readonly maxKeys?: unknown }).maxKeys !== undefined)
    throw invalidOption(
      'rateLimit',
      'options.maxKeys is for a local limit; a shared limiter keeps its quotas in its store',
      (options as { readonly maxKeys?: unknown }).maxKeys,
    );
  const storeKeyOf =
    typeof key === 'string'
      ? () => key
      : (context: unknown, run: HandlerCall) => sharedStoreKey(keyValueOf(key as RateLimitKey<unknown>, context, run));

  /** Gives back points granted to an activation that will not start; the limiter's answer is of no use to anyone. */
  const giveBack = (key: string): void => {
    if (limiter.reward === undefined) return;
    try {
      const returned = limiter.reward(key, points);
      if (isThenable(returned)) Promise.resolve(returned).catch(() => undefined);
    } catch {
      // A failed reward leaves the quota as spent as it was: nothing to report to the aborted caller.
    }
  };

  /** One consume, settled into an answer; an abort ends the wait at once and gives back a grant that arrives later. */
  const consume = (key: string, signal: AbortSignal, waiter: Waiter): Promise<Answer> => {
    let abandoned = false;
    let granted = false;
    let pending: PromiseLike<unknown>;
    try {
      pending = limiter.consume(key, points);
    } catch (error) {
      return Promise.resolve({ failed: error });
    }
    const answered = Promise.resolve(pending).then(
      (): Answer => {
        granted = true;
        if (abandoned) giveBack(key);
        return { granted: true };
      },
      (rejection: unknown): Answer => {
        const waitMs = waitAskedFor(rejection);
        return waitMs === undefined ? { failed: rejection } : { granted: false, waitMs };
      },
    );
    return untilAborted(answered, signal, waiter, () => {
      abandoned = true;
      // Granted a moment ago, but the wait ends here: nobody else will give the points back.
      if (granted) giveBack(key);
    });
  };

  const handler = async function* rateLimit<TContext, TEvent>(
    context: TContext,
    next: (context?: TContext) => AsyncGenerator<TEvent, void, undefined>,
    run: HandlerCall,
  ) {
    const waiter = { stage: run.stage.name, handler: run.handler };
    throwIfAborted(run.signal, waiter);
    const storeKey = storeKeyOf(context, run);
    for (;;) {
      const answer = await consume(storeKey, run.signal, waiter);
      if ('failed' in answer) throw answer.failed;
      if (answer.granted) break;
      await sleep(answer.waitMs, run.signal, waiter, timers);
    }
    // Aborted after the grant, before this activation resumed to start: the points go back.
    if (run.signal.aborted) {
      giveBack(storeKey);
      throwIfAborted(run.signal, waiter);
    }
    yield* next(context);
  };
  return named('rateLimit', handler);
}
