/**
 * Generator plumbing of the invoke: taking what a Wrap handler or the
 * terminal returned as a layer, and the small generators that enforce a
 * rule when a layer finishes (state recording, the `'once'` next policy).
 *
 * @packageDocumentation
 */
import * as messages from './messages';
import type { Culprit } from './messages';
import type { StateIsolation } from './state';

/** One layer of the onion as the invoke drives it. */
export type LayerGenerator = AsyncGenerator<unknown, void, undefined>;

/**
 * `next` of every native async generator. A layer whose `next` is this one
 * returns a native promise and never throws synchronously, which is what
 * lets the invoke take its per-event shortcut.
 */
export const nativeNext = (Object.getPrototypeOf(Object.getPrototypeOf((async function* probe() {})())) as LayerGenerator).next;

/** Whether `value` must be awaited: non-thenables never are, since awaiting them would cost promise-job turns. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * Returns the generator itself when it is one; adapts other async iterables;
 * rejects the rest. Takes the culprit's parts rather than a culprit so the
 * common case allocates nothing.
 *
 * @throws MiddlewareError `ERR_INVALID_HANDLER` when `produced` is not an async iterable.
 */
export function asGenerator(produced: unknown, stage: string, phase: Culprit['phase'], handler: string): LayerGenerator {
  if (produced !== null && typeof produced === 'object') {
    const candidate = produced as Partial<LayerGenerator>;
    if (typeof candidate[Symbol.asyncIterator] === 'function') {
      if (typeof candidate.next === 'function' && typeof candidate.return === 'function') return candidate as LayerGenerator;
      return adapt(candidate as AsyncIterable<unknown>);
    }
  }
  throw messages.notAsyncIterable({ stage, phase, handler }, produced);
}

/** Gives an async iterable that is not a generator the `return()` the invoke closes layers with. */
async function* adapt(iterable: AsyncIterable<unknown>): LayerGenerator {
  yield* iterable;
}

/** Records the draft's state when the terminal call completes (and only then). */
export async function* completeState(events: LayerGenerator, isolation: StateIsolation<unknown>, draft: unknown): LayerGenerator {
  yield* events;
  isolation.complete(draft as never);
}

/**
 * Enforces `next: 'once'`: finishing without a call to `next()` is an error.
 *
 * @throws MiddlewareError `ERR_NEXT_POLICY` when the layer finishes and `activation.calls` is 0.
 */
export async function* requireACall(events: LayerGenerator, activation: { readonly calls: number }, culprit: () => Culprit): LayerGenerator {
  yield* events;
  if (activation.calls === 0) throw messages.nextPolicy(culprit(), 'once', 0);
}
