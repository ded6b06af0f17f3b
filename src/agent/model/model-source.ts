/**
 * The model's own stream, as the model terminal opens and closes it.
 *
 * @packageDocumentation
 */
import { ignoreRejection } from '../tools/abort-race';
import { invalidModelStream } from '../tools/call-errors';
import type { ModelStreamEvent } from '../types/model';

/**
 * The iterator of what `model.stream()` returned.
 *
 * @throws MiddlewareError `ERR_INVALID_HANDLER` when it is not an async iterable (a promise, null, an array).
 */
export function openStream(returned: unknown): AsyncIterator<ModelStreamEvent> {
  const open = (returned as Partial<AsyncIterable<ModelStreamEvent>> | null | undefined)?.[Symbol.asyncIterator];
  if (typeof open !== 'function') {
    const isPromise = typeof (returned as PromiseLike<unknown> | null)?.then === 'function';
    // An async stream() rejecting later must not surface as an unhandled rejection next to this error.
    if (isPromise) ignoreRejection(returned as PromiseLike<unknown>);
    throw invalidModelStream(undefined, { value: returned, isPromise });
  }
  return open.call(returned);
}

/**
 * Closes the model's stream after the terminal left it early. When the signal
 * aborted, the model may be stuck in an await it never leaves: its `return()`
 * is requested but not waited for, and a failure of it dropped.
 */
export async function close(iterator: AsyncIterator<ModelStreamEvent>, aborted: boolean): Promise<void> {
  if (typeof iterator.return !== 'function') return;
  if (!aborted) {
    await iterator.return();
    return;
  }
  try {
    ignoreRejection(iterator.return());
  } catch {
    // A model that cannot be closed is dropped all the same.
  }
}
