/** Telling an async iterable (a stream of a model, of a tool's preliminary results) from a value. */
import { isObject } from './is-object';

/** True for an object with a `Symbol.asyncIterator` method: an async generator's object, a stream. */
export function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return isObject(value) && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}
