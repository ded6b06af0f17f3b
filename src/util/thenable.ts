/** Whether `value` must be awaited: non-thenables never are, since awaiting them would cost promise-job turns. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

/** Whether an async generator's `yield` would await `value`: a thenable as {@link isThenable} says, or a function with a `then` method. */
export function isAwaitable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'function' ? typeof (value as { then?: unknown }).then === 'function' : isThenable(value);
}
