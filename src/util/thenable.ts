/** Whether `value` must be awaited: non-thenables never are, since awaiting them would cost promise-job turns. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}
