/**
 * The check every public entry point makes of what it was given, before it
 * reads a field: its declared type says an object, but a JavaScript caller
 * can pass anything (`null` included), and must get a MiddlewareError for it.
 *
 * @packageDocumentation
 */

/** Whether `value` is an object or a function's object form: not `null`, not a primitive. */
export function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
