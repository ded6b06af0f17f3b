import { schedule, systemTimers, type Timers } from '../util/timers';
import { abortedWait, type Waiter } from './errors';

/**
 * Waits `ms` milliseconds unless `signal` aborts first. The timer and the
 * abort listener are removed in every path, so an aborted wait leaves nothing behind.
 * Any length is honoured (see {@link schedule}); a delay that is not above 0 (NaN included) does not wait.
 *
 * @throws MiddlewareError `ERR_ABORTED` (cause: the signal's reason) when the
 *   signal is aborted before or during the wait.
 * @example
 * ```ts
 * await sleep(500, run.signal, { stage: run.stage.name, handler: run.handler });
 * ```
 */
export function sleep(
  ms: number,
  signal: AbortSignal,
  waiter: Waiter,
  timers: Pick<Timers, 'setTimeout' | 'clearTimeout'> = systemTimers,
): Promise<void> {
  if (signal.aborted) return Promise.reject(abortedWait(waiter, signal.reason));
  if (!(ms > 0)) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      cancel();
      reject(abortedWait(waiter, signal.reason));
    };
    const cancel = schedule(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      ms,
      timers,
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Waits for `pending` unless `signal` aborts first. An abort ends the wait at
 * once: `onAbort` runs, then the returned promise rejects, and `pending` is
 * left to settle alone (its value or error is ignored). The abort listener is
 * removed in every path.
 *
 * @throws MiddlewareError `ERR_ABORTED` (cause: the signal's reason) when the
 *   signal is aborted before `pending` settles; else what `pending` rejects with.
 */
export function untilAborted<T>(pending: PromiseLike<T>, signal: AbortSignal, waiter: Waiter, onAbort?: () => void): Promise<T> {
  if (signal.aborted) {
    onAbort?.();
    return Promise.reject(abortedWait(waiter, signal.reason));
  }
  return new Promise<T>((resolve, reject) => {
    const aborted = (): void => {
      onAbort?.();
      reject(abortedWait(waiter, signal.reason));
    };
    signal.addEventListener('abort', aborted, { once: true });
    pending.then(
      (value) => {
        signal.removeEventListener('abort', aborted);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', aborted);
        reject(error);
      },
    );
  });
}

/**
 * Fails a waiter whose signal is already aborted.
 *
 * @throws MiddlewareError `ERR_ABORTED` (cause: the signal's reason) when `signal` is aborted.
 */
export function throwIfAborted(signal: AbortSignal, waiter: Waiter): void {
  if (signal.aborted) throw abortedWait(waiter, signal.reason);
}
