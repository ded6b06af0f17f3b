import type { Next, WrapRun } from '../stage/types';
import { invalidOption, isAbortError } from './errors';

/**
 * Attempt-scoped streams: how `retry`, `fallback` and `regenerate` let the
 * events of an attempt reach the consumer when a later attempt may replace it.
 *
 * - `'commit'` holds an attempt's events and releases them only when the
 *   attempt succeeds, so a failed attempt's events never reach the consumer.
 *   Correct for every event type, at the price of streaming: it is the default.
 * - `'live'` lets events flow at once; before each new attempt it yields a
 *   boundary event naming the failed attempt, so a UI can discard what it showed.
 *
 * Why the boundary is built by a factory: a Wrap handler may only yield the
 * stage's event type, so only the user knows what a boundary looks like for
 * their stage. `'live'` alone uses {@link AttemptBoundaryEvent}, which type-checks
 * only on stages whose event type admits that shape.
 */

/** What a boundary factory learns about the attempt that failed. */
export interface AttemptBoundaryInfo {
  /** Name of the handler that starts a new attempt (`retry`, `fallback`, `regenerate` or the registered name). */
  readonly handler: string;
  /** The attempt that failed, counting from 1. */
  readonly failedAttempt: number;
  /** The attempt about to start. */
  readonly nextAttempt: number;
  /** Why it failed: the error it threw, or the error `check` threw for `regenerate`. */
  readonly error: unknown;
}

/**
 * The boundary event `stream: 'live'` yields. Add it to a stage's event union
 * to use `'live'` without a factory.
 */
export interface AttemptBoundaryEvent extends AttemptBoundaryInfo {
  /** Discriminant. */
  readonly type: 'attempt-boundary';
}

/** `stream: { mode: 'live', boundary }`: live streaming with a boundary event of the stage's own type. */
export interface LiveStream<TBoundary> {
  /** Events flow at once. */
  readonly mode: 'live';
  /** Builds the event yielded before each new attempt. */
  readonly boundary: (info: AttemptBoundaryInfo) => TBoundary;
}

/** The `stream` option of `retry`, `fallback` and `regenerate`. */
export type AttemptStream = 'commit' | 'live' | LiveStream<unknown>;

/**
 * A Wrap handler that fits any stage whose event type admits `TBoundary`
 * (every stage when `TBoundary` is `never`). Generic, so users never spell
 * the stage's types: `registry.add(Stage.Wrap, retry())` checks them.
 */
export type AnyStageWrap<TBoundary> = <TContext, TEvent>(
  context: TContext,
  next: Next<TContext, TEvent>,
  run: WrapRun,
) => AsyncGenerator<TEvent | TBoundary, void, undefined>;

/** A Wrap handler for stages with context type `TContext` whose event type admits `TBoundary`. */
export type ContextWrap<TContext, TBoundary> = <TEvent>(
  context: TContext,
  next: Next<TContext, TEvent>,
  run: WrapRun,
) => AsyncGenerator<TEvent | TBoundary, void, undefined>;

/** The `stream` option after validation. */
export type ResolvedStream =
  | { readonly live: false }
  | { readonly live: true; readonly boundary: (info: AttemptBoundaryInfo) => unknown };

/**
 * Validates a `stream` option.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for anything but `'commit'`, `'live'` or `{ mode: 'live', boundary }`.
 */
export function resolveStream(stream: unknown, factory: string): ResolvedStream {
  if (stream === undefined || stream === 'commit') return { live: false };
  if (stream === 'live') return { live: true, boundary: defaultBoundary };
  if (
    typeof stream === 'object' &&
    stream !== null &&
    (stream as LiveStream<unknown>).mode === 'live' &&
    typeof (stream as LiveStream<unknown>).boundary === 'function'
  ) {
    return { live: true, boundary: (stream as LiveStream<unknown>).boundary };
  }
  throw invalidOption(factory, "options.stream must be 'commit', 'live' or { mode: 'live', boundary(info) }", stream);
}

/** The boundary event of `stream: 'live'`. */
function defaultBoundary(info: AttemptBoundaryInfo): AttemptBoundaryEvent {
  return { type: 'attempt-boundary', ...info };
}

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
  readonly run: WrapRun;
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
 * `ERR_ABORTED`, that error ends the loop at once.
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
    if (run.signal.aborted || isAbortError(error)) throw error;
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
