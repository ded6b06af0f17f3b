import { MiddlewareError } from '../errors';
import type { WrapRun } from '../types';
import type { AnyStageWrap } from './attempts';
import { checkOptionsObject, optionalTimers, positiveNumber, timedOut } from './failures';
import { systemTimers, type Timers } from './sleep';

/** Options of {@link timeout}. */
export interface TimeoutOptions {
  /** Clock for the deadline. Default: the runtime's timers. */
  readonly timers?: Timers;
}

/**
 * Gives the inner chain `ms` milliseconds. When they run out it aborts the
 * inner chain's signal (through `next(context, { signal })`, the reason being
 * the `ERR_TIMEOUT` error) and throws `ERR_TIMEOUT`; an event or the end of the
 * inner chain arriving after the deadline is dropped, so a terminal that
 * ignores its signal is still cut off at its next event. If the invoke's
 * signal (or an outer one) aborts first, that abort wins (`ERR_ABORTED`).
 * The timer is cleared in every path.
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
  const timers = optionalTimers('timeout', options.timers, ['setTimeout', 'clearTimeout']) ?? systemTimers;
  const handler = async function* timeout<TContext, TEvent>(
    context: TContext,
    next: (context?: TContext, options?: { signal?: AbortSignal }) => AsyncGenerator<TEvent, void, undefined>,
    run: WrapRun,
  ) {
    const controller = new AbortController();
    let expired: MiddlewareError | undefined;
    const handle = timers.setTimeout(() => {
      expired = timedOut(run, ms);
      controller.abort(expired);
    }, ms);
    let events: AsyncGenerator<TEvent, void, undefined> | undefined;
    try {
      events = next(context, { signal: controller.signal });
      for (;;) {
        const pulled = await events.next();
        if (expired !== undefined) throw expired;
        if (pulled.done === true) return;
        yield pulled.value;
      }
    } catch (error) {
      // An outer abort explains everything that followed it, our own expiry included.
      if (run.signal.aborted) throw error;
      throw expired ?? error;
    } finally {
      timers.clearTimeout(handle);
      // Closes an inner chain cut off by the deadline now, so an outer retry does not leave it open.
      await events?.return(undefined);
    }
  };
  return handler as AnyStageWrap<never>;
}
