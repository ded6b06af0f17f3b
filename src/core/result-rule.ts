/**
 * The last event is the result (MW-003, MW-006): what an invoke's consumer
 * receives, event by event, and which event the invoke ends with.
 *
 * The mode is fixed per invoke ({@link holdsResult}). In pass mode every
 * event goes out as it comes, and at the end the last one is the result,
 * which must pass the stage's `isResult` guard. In hold mode (Output
 * handlers, a result schema or a state binding: the result must be
 * transformed, checked or committed before anyone sees it) a result
 * candidate (an event the guard accepts, or every event without a guard)
 * waits until the next event or the end shows whether it is the last
 * ({@link acceptEvent}, {@link holdBack}): a later candidate releases it,
 * a non-candidate behind it releases it and is queued to follow, and at the
 * end the candidate still held is the result ({@link finalResult}). An
 * invoke that ends without one fails with `ERR_NO_RESULT`.
 *
 * The invoke's iterator (`invocation.ts`) holds the state these functions
 * read and write; they sit on every event, so they allocate nothing but the
 * answer that releases a held event.
 *
 * @packageDocumentation
 */
import type { ResolvedChain } from './chain';
import type { MiddlewareError } from './errors';
import type { Answer } from './fast-path';
import type { StateBinding } from './types';

/** The part of an invoke that applies the rule. */
export interface ResultHolder {
  /** The last event pulled; events are never undefined, so undefined means none came. */
  last: unknown;
  /** Hold mode: the result candidate waiting for the next event or the end. */
  held: unknown;
  /** Hold mode: an event that released the held candidate, delivered at the next pull. */
  queued: unknown;
  /** The mode ({@link holdsResult}). */
  readonly hold: boolean;
  /** The stage's `isResult` guard, if any. */
  readonly guard: ((event: unknown) => boolean) | undefined;
  /** `ERR_NO_RESULT`; `last` is the last event, when one came. */
  noResult(last: { readonly present: boolean; readonly value?: unknown }): MiddlewareError;
}

/** Whether an invoke runs in hold mode: its result has to pass the Output phase, the result schema or the state writeback first. */
export function holdsResult(chain: ResolvedChain, binding: StateBinding<unknown> | undefined): boolean {
  return chain.output.length > 0 || chain.stage.resultSchema !== undefined || binding !== undefined;
}

/**
 * One event pulled from the outermost layer (not the end, not undefined): the
 * answer to deliver, or undefined when the event is held and the next one
 * must be pulled first. The guard sees each event once.
 */
export function acceptEvent<TEvent>(holder: ResultHolder, pulled: IteratorYieldResult<unknown>): Answer<TEvent> | undefined {
  const event = pulled.value;
  holder.last = event;
  if (!holder.hold) return pulled as Answer<TEvent>;
  const guard = holder.guard;
  const candidate = guard === undefined || guard(event);
  // Not a result, and nothing held before it: it goes out as it came in.
  if (!candidate && holder.held === undefined) return pulled as Answer<TEvent>;
  return holdBack(holder, event, candidate);
}

/** Hold mode: releases the candidate held before `event`, if any; holds `event` when it is a candidate, else queues it behind. */
function holdBack<TEvent>(holder: ResultHolder, event: unknown, candidate: boolean): Answer<TEvent> | undefined {
  const held = holder.held;
  if (!candidate) {
    holder.held = undefined;
    holder.queued = event;
    return { value: held as TEvent, done: false };
  }
  holder.held = event;
  return held === undefined ? undefined : { value: held as TEvent, done: false };
}

/**
 * The chain ended: the result, taken out of the holder. In hold mode the
 * candidate still held; in pass mode the last event, which must pass the guard.
 *
 * @throws MiddlewareError `ERR_NO_RESULT` when no event came, or none is the result.
 */
export function finalResult(holder: ResultHolder): unknown {
  const { last, hold, guard } = holder;
  if (last === undefined) throw holder.noResult({ present: false });
  const result = hold ? holder.held : last;
  if (result === undefined || (!hold && guard !== undefined && !guard(last))) throw holder.noResult({ present: true, value: last });
  holder.held = undefined;
  return result;
}
