/**
 * Copy-once freezing for values entering the agent: the caller's objects are
 * copied (so the freeze never reaches them), the copies frozen, and anything
 * already frozen taken as it is (so a value is frozen once, however often it moves).
 */

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * Returns a deeply frozen copy of plain data (arrays and plain objects).
 * Already-frozen values, primitives and non-plain objects (class instances,
 * functions) are returned as they are: a frozen value is taken to be frozen
 * all the way down, as immer does, and instances are not data.
 *
 * @example
 * ```ts
 * const messages = adopt(callerMessages); // the caller's array stays mutable
 * ```
 */
export function adopt<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) {
    const copy = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index++) copy[index] = adopt(value[index] as unknown);
    return Object.freeze(copy) as T;
  }
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) as Record<string, unknown> : {};
  for (const key of Object.keys(value)) copy[key] = adopt((value as Record<string, unknown>)[key]);
  return Object.freeze(copy) as T;
}
