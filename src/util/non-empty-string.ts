/**
 * The check of every name and id the library takes (a stage's name, a
 * handler's `name` and `id`, a contribution key's name, an id a key's
 * `identify` gives): a string with at least one character.
 *
 * @packageDocumentation
 */

/** Whether `value` is a string of at least one character. */
export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}
