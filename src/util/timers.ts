/**
 * The clocks the library reads and waits on, injectable so that tests run
 * backoff, timeouts, rate limits, cache expiry and scripted waits without
 * real waiting; and how a wait of any length is scheduled on them.
 *
 * @packageDocumentation
 */

/**
 * The clocks the built-in middleware and the scripted terminal read and wait
 * on. Each factory's `timers` option names the methods it uses.
 */
export interface Timers {
  /** Milliseconds from an arbitrary origin, for measuring time within this process; only differences are used. */
  now(): number;
  /** Milliseconds since the Unix epoch (`Date.now()`), for times stored where other processes or later runs read them. */
  wallClock(): number;
  /** Schedules `callback` after `ms` milliseconds and returns a handle for `clearTimeout`. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a callback scheduled with `setTimeout`. */
  clearTimeout(handle: unknown): void;
}

/**
 * The runtime's own timers. Looked up on every call (not captured at load
 * time) so that fake timers installed by a test framework are honoured.
 */
export const systemTimers: Timers = {
  now: () => (typeof performance !== 'undefined' ? performance.now() : Date.now()),
  wallClock: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => {
    globalThis.clearTimeout(handle as Parameters<typeof globalThis.clearTimeout>[0]);
  },
};

/**
 * The longest delay a JavaScript timer honours (2^31 − 1 ms, about 24.8
 * days): runtimes fire a longer one after about 1 ms.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * Calls `callback` once `ms` milliseconds have passed on `timers`, however
 * long that is: a delay longer than {@link MAX_TIMER_DELAY_MS} is waited in
 * consecutive slices of at most that length. `Infinity` never calls back and
 * holds no timer. Returns the function that cancels it.
 */
export function schedule(callback: () => void, ms: number, timers: Pick<Timers, 'setTimeout' | 'clearTimeout'>): () => void {
  if (ms === Infinity) return () => undefined;
  let remaining = ms;
  let handle: unknown;
  const arm = (): void => {
    const slice = Math.min(remaining, MAX_TIMER_DELAY_MS);
    remaining -= slice;
    handle = timers.setTimeout(remaining > 0 ? arm : callback, slice);
  };
  arm();
  return () => {
    timers.clearTimeout(handle);
  };
}
