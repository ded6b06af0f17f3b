/**
 * One layer of the onion as the invoke drives it: taking what a Wrap handler
 * or the terminal returned as a layer, pulling from a layer of any iterator
 * shape (MW-012), and the `'once'` next policy, enforced when a layer ends.
 *
 * @packageDocumentation
 */
import * as messages from './messages';
import type { ErrorSite } from './errors';
import { isObject } from '../util/is-object';

/** One layer of the onion as the invoke drives it. */
export type LayerGenerator = AsyncGenerator<unknown, void, undefined>;

/**
 * Returns the generator itself when it is one; adapts other async iterables;
 * rejects the rest. Takes the culprit's parts rather than a culprit so the
 * common case allocates nothing.
 *
 * @throws MiddlewareError `ERR_INVALID_HANDLER` when `produced` is not an async iterable.
 */
export function asGenerator(produced: unknown, stage: string, phase: ErrorSite['phase'], handler: string): LayerGenerator {
  if (isObject(produced)) {
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

/**
 * One pull from a layer that may be hand-written: whatever its `next()` does
 * (returns a plain result instead of a promise, or throws synchronously), the
 * caller gets a promise. A native generator's promise is returned as it is.
 */
export function pullFrom(events: LayerGenerator): Promise<IteratorResult<unknown, void>> {
  let pulled: IteratorResult<unknown, void> | PromiseLike<IteratorResult<unknown, void>>;
  try {
    pulled = events.next();
  } catch (error) {
    return Promise.reject(error);
  }
  return pulled instanceof Promise ? pulled : Promise.resolve(pulled);
}

/**
 * Calls a method of a layer that may be hand-written (`return` or `throw`)
 * so that a synchronous throw or a plain result still gives a promise.
 */
export function callSafely(events: LayerGenerator, method: 'return' | 'throw', argument: unknown): Promise<IteratorResult<unknown, void>> {
  try {
    return Promise.resolve(events[method](argument as never));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Enforces `next: 'once'`: finishing without a call to `next()` is an error.
 *
 * @throws MiddlewareError `ERR_NEXT_POLICY` when the layer finishes and `activation.calls` is 0.
 */
export async function* requireACall(
  events: LayerGenerator,
  activation: { readonly calls: number },
  culprit: () => ErrorSite,
): LayerGenerator {
  yield* events;
  if (activation.calls === 0) throw messages.nextPolicy(culprit(), 'once', 0);
}
