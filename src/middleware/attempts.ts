/**
 * One attempt loop, what `retry`, `fallback` and `regenerate` have in common:
 * run the inner chain, and after a failed attempt ask the plan what follows
 * (another attempt, after a wait; keeping the failed attempt; or giving up),
 * letting the attempt's events reach the consumer as the `stream` option says
 * (`attempt-stream.ts`).
 *
 * @packageDocumentation
 */
import type { Next, HandlerCall } from '../core/index';
import type { ResolvedStream } from './attempt-stream';
import { isAbortError, isInterruptSignal } from './errors';

/** A failed attempt, as the plan's `recover` sees it. */
export interface AttemptFailure<TContext> {
  /** The error the attempt threw, or the error `accept` threw. */
  readonly error: unknown;
  /** The attempt that failed, counting from 1. */
  readonly attempt: number;
  /** The context that attempt ran with. */
  readonly context: TContext;
  /** True when the attempt completed but `accept` rejected its result. */
  readonly rejected: boolean;
}

/** What to do after a failed attempt. Throwing from `recover` ends the loop with that error instead. */
export type Recovery<TContext> =
  /** Run another attempt with this context, after `wait()` (a signal-aware backoff) when given. */
  | { readonly retry: TContext; readonly wait?: () => Promise<void> }
  /** Keep the failed attempt's events as the outcome (a non-critical `regenerate`). */
  | { readonly accept: true };

/** One attempt loop: what `retry`, `fallback` and `regenerate` have in common. */
export interface AttemptPlan<TContext, TEvent> {
  /** Context of the first attempt. */
  readonly context: TContext;
  /** The handler's `next`. */
  readonly next: Next<TContext, TEvent>;
  /** The handler's run. */
  readonly run: HandlerCall;
  /** How events reach the consumer. */
  readonly stream: ResolvedStream;
  /** Inspects a completed attempt's result (its last event); throws to reject it. */
  readonly accept?: (result: TEvent, context: TContext, attempt: number) => unknown;
  /** Decides what follows a failed attempt. */
  readonly recover: (failure: AttemptFailure<TContext>) => Recovery<TContext> | Promise<Recovery<TContext>>;
}

/**
 * Runs attempts until one succeeds or `recover` gives up. An abort is never
 * recovered from: when the signal is aborted, or an attempt threw
 * `ERR_ABORTED`, that error ends the loop at once. Nor is an interrupt
 * signal: it asks a human a question, and another attempt would only ask it again.
 */
export async function* runAttempts<TContext, TEvent>(plan: AttemptPlan<TContext, TEvent>): AsyncGenerator<TEvent, void, undefined> {
  const { run, stream } = plan;
  const guard = run.stage.isResult;
  let context = plan.context;
  for (let attempt = 1; ; attempt++) {
    const held: TEvent[] = [];
    let last: TEvent | undefined;
    let seen = false;
    let failed = false;
    let error: unknown;
    let events: AsyncGenerator<TEvent, void, undefined> | undefined;
    try {
      events = plan.next(context);
      for (;;) {
        let pulled: IteratorResult<TEvent, void>;
        try {
          pulled = await events.next();
        } catch (thrown) {
          failed = true;
          error = thrown;
          break;
        }
        if (pulled.done === true) break;
        seen = true;
        last = pulled.value;
        if (stream.live) yield pulled.value;
        else held.push(pulled.value);
      }
    } catch (thrown) {
      // Only next() itself can land here (a signal already aborted, say): the attempt never started.
      failed = true;
      error = thrown;
    } finally {
      // Closes the attempt when the consumer stops this handler mid-attempt; a no-op once it ended.
      await events?.return(undefined);
    }
    let rejected = false;
    if (!failed && plan.accept !== undefined && seen && (guard === undefined || guard(last))) {
      try {
        await plan.accept(last as TEvent, context, attempt);
      } catch (thrown) {
        failed = true;
        rejected = true;
        error = thrown;
      }
    }
    if (!failed) {
      for (const event of held) yield event;
      return;
    }
    if (run.signal.aborted || isAbortError(error) || isInterruptSignal(error)) throw error;
    const recovery = await plan.recover({ error, attempt, context, rejected });
    if ('accept' in recovery) {
      for (const event of held) yield event;
      return;
    }
    if (stream.live) {
      yield stream.boundary({ handler: run.handler, failedAttempt: attempt, nextAttempt: attempt + 1, error }) as TEvent;
    }
    if (recovery.wait !== undefined) await recovery.wait();
    context = recovery.retry;
  }
}
