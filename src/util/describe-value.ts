/**
 * How error messages show a value they were given: a few words that never
 * throw, whatever the value is.
 *
 * @packageDocumentation
 */

/**
 * A short description of any value for error messages. It never throws:
 * building the message of an error must not replace that error with another
 * one (a throwing getter, a revoked proxy, an object without a prototype).
 */
export function describeValue(value: unknown): string {
  try {
    return describeUnguarded(value);
  } catch {
    return typeof value === 'function'
      ? 'a function that cannot be inspected'
      : 'an object that cannot be inspected (a proxy, or a throwing getter)';
  }
}

/** `String(value)`, or its description when the value cannot be converted (a null-prototype object, a throwing `toString`). */
export function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return describeValue(value);
  }
}

function describeUnguarded(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return `a function${value.name ? ` (${value.name})` : ''}`;
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (typeof value === 'object') {
    if (typeof (value as { then?: unknown }).then === 'function') return 'a promise';
    if (typeof (value as { next?: unknown }).next === 'function' && Symbol.iterator in value)
      return 'a synchronous iterator (a `function*` generator?)';
    const constructorName = (value as { constructor?: { name?: string } }).constructor?.name;
    return constructorName && constructorName !== 'Object' ? `an instance of ${constructorName}` : 'a plain object';
  }
  const primitive = value as number | bigint | boolean | symbol;
  return `${typeof value} ${String(primitive)}`;
}
