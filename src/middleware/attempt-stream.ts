/**
 * Attempt-scoped streams, the `stream` option of `retry`, `fallback` and
 * `regenerate`: how the events of an attempt reach the consumer when a
 * later attempt may replace it.
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
 *
 * @packageDocumentation
 */
import { invalidOption } from './errors';
import { isObject } from '../util/is-object';

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

/** The `stream` option after validation. */
export type ResolvedStream = { readonly live: false } | { readonly live: true; readonly boundary: (info: AttemptBoundaryInfo) => unknown };

/**
 * Validates a `stream` option.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for anything but `'commit'`, `'live'` or `{ mode: 'live', boundary }`.
 */
export function resolveStream(stream: unknown, factory: string): ResolvedStream {
  if (stream === undefined || stream === 'commit') return { live: false };
  if (stream === 'live') return { live: true, boundary: defaultBoundary };
  if (
    isObject(stream) &&
    (stream as { readonly mode?: unknown }).mode === 'live' &&
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
