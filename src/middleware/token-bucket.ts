import { schedule, type Timers } from '../util/timers';
import type { Waiter } from './errors';
import { untilAborted } from './sleep';

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

/** One token bucket of `rateLimit` (MW-090) with its queue of waiting activations. */
export interface TokenBucket {
  /**
   * Takes a token for an activation whose signal is not aborted: `undefined`
   * when it took one at once, else a promise that resolves once it was given
   * one and rejects with `ERR_ABORTED` when its signal aborts first.
   */
  take(signal: AbortSignal, waiter: Waiter): Promise<void> | undefined;
  /** Puts back the token of an activation given one whose signal aborted before it started. */
  giveBack(): void;
  /** Whether activations wait in its queue; a bucket without any holds no timer and can be dropped. */
  readonly busy: boolean;
}

/**
 * A token bucket: `capacity` tokens, full at first, refilled continuously
 * over `intervalMs`; an activation takes one token when it starts.
 * Activations that find no token wait in one queue, in arrival order; the
 * head starts the moment a token is there, and only the head has a timer.
 * An aborted waiter leaves the queue at once and the ones behind it move up,
 * and an activation aborted before it starts never keeps a token.
 */
export function createTokenBucket(
  capacity: number,
  intervalMs: number,
  timers: Pick<Timers, 'now' | 'setTimeout' | 'clearTimeout'>,
): TokenBucket {
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

  return {
    take(signal, waiter) {
      refill();
      if (queue.size === 0 && tokens >= 1 - ROUNDING) {
        tokens -= 1;
        return undefined;
      }
      return wait(signal, waiter);
    },
    giveBack,
    get busy() {
      return queue.size > 0;
    },
  };
}
