import type { MiddlewareError } from '../core/index';
import type { HandlerCall } from '../core/index';
import type { AnyStageWrap } from './wrap-types';
import { timedOut } from './errors';
import { checkOptionsObject, optionalTimers, positiveNumber } from './options';
import { named } from './named';
import { schedule, systemTimers, type Timers } from '../util/timers';

/** Options of {@link timeout}. */
export interface TimeoutOptions {
  /** Clock for the deadline: `now()` to measure it, `setTimeout` / `clearTimeout` to wait for it. Default: the runtime's timers. */
  readonly timers?: Pick<Timers, 'now' | 'setTimeout' | 'clearTimeout'>;
}

/**
 * Gives the inner chain `ms` milliseconds from the handler's start. When they
 * run out it aborts the inner chain's signal (through `next(context, { signal })`,
 * the reason being the `ERR_TIMEOUT` error) and throws `ERR_TIMEOUT` at once,
 * even while the inner chain is stuck in an `await` that ignores its signal:
 * each pull from the inner chain is raced against the deadline, and an event
 * or the end arriving after it is dropped. If the invoke's signal (or an
 * outer one) aborts first, that abort wins (`ERR_ABORTED` at the invoke).
 *
 * The timer runs only while the handler pulls the inner chain. While the
 * consumer holds an event, the handler and its inner chain are suspended and
 * hold no timer, so an invoke abandoned there keeps nothing alive; a deadline
 * that passed meanwhile is found at the next pull, which then aborts the inner
 * signal and throws `ERR_TIMEOUT` without pulling.
 *
 * A chain cut off while stuck is not closed here (a generator cannot be
 * returned while its `next()` is pending): the invoke closes it when it
 * settles, and waits for that close. So an outer `retry` or `fallback` gets
 * the `ERR_TIMEOUT` at the deadline and can start a fresh attempt at once,
 * but the consumer of the invoke receives its outcome only once the stuck
 * await has settled. Make the terminal honour `run.signal` to end it at the
 * deadline.
 *
 * @throws MiddlewareError `ERR_TIMEOUT` naming the stage and handler.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` at once when `ms` is not a finite number > 0.
 * @example
 * ```ts
 * registry.add(ModelStage.Wrap, timeout(30_000));
 * ```
 */
export function timeout(ms: number, options: TimeoutOptions = {}): AnyStageWrap<never> {
  positiveNumber('timeout', 'ms', ms);
  checkOptionsObject('timeout', options, '{ timers? }');
  const timers = optionalTimers('timeout', options.timers, ['now', 'setTimeout', 'clearTimeout']) ?? systemTimers;
  const handler = async function* timeout<TContext, TEvent>(
    context: TContext,
    next: (context?: TContext, options?: { signal?: AbortSignal }) => AsyncGenerator<TEvent, void, undefined>,
    run: HandlerCall,
  ) {
    const deadline = timers.now() + ms;
    const controller = new AbortController();
    let expired: MiddlewareError | undefined;
    // Rejects the pull in progress; a fresh function per pull, so no reaction piles up on a shared deadline promise.
    let cutOff: ((error: MiddlewareError) => void) | undefined;
    // Cancels the timer of the pull in progress: armed only while pulling, so a suspended handler holds none.
    let cancel: (() => void) | undefined;
    let pending = false;
    const expire = (): void => {
      cancel = undefined;
      expired = timedOut(run, ms);
      cutOff?.(expired);
      controller.abort(expired);
    };
    // The pull settled: the timer stops, and a deadline already reached by the clock still counts.
    const settled = (): void => {
      pending = false;
      cutOff = undefined;
      cancel?.();
      cancel = undefined;
      if (expired === undefined && timers.now() >= deadline) expire();
    };
    let events: AsyncGenerator<TEvent, void, undefined> | undefined;
    try {
      const inner = next(context, { signal: controller.signal });
      events = inner;
      const pull = (resolve: (pulled: IteratorResult<TEvent, void>) => void, reject: (error: unknown) => void): void => {
        if (expired === undefined) {
          const left = deadline - timers.now();
          if (left <= 0) expire();
          else cancel = schedule(expire, left, timers);
        }
        if (expired !== undefined) {
          reject(expired);
          return;
        }
        cutOff = reject;
        const pulling = inner.next();
        pending = true;
        pulling.then(
          (pulled) => {
            settled();
            resolve(pulled);
          },
          (error: unknown) => {
            settled();
            reject(error);
          },
        );
      };
      for (;;) {
        const pulled = await new Promise(pull);
        if (expired !== undefined) throw expired;
        if (pulled.done === true) return;
        yield pulled.value;
      }
    } catch (error) {
      // An outer abort explains everything that followed it, our own expiry included:
      // a chain cut off by the deadline threw nothing itself, so the outer reason stands for it.
      if (run.signal.aborted) throw error === expired ? run.signal.reason : error;
      throw expired ?? error;
    } finally {
      cancel?.();
      cutOff = undefined;
      // A chain cut off mid-pull cannot be returned before that pull settles; the invoke closes it when it settles.
      // Any other inner chain is closed now, so an outer retry does not leave it open.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the pull sets pending, which TypeScript's narrowing does not see
      if (!pending) await events?.return(undefined);
    }
  };
  return named('timeout', handler);
}
