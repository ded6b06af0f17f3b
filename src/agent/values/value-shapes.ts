/**
 * Tests of a value's shape that the agent kit's checks share (of options,
 * snapshots, blocks, interrupt requests, contributed tools). `isObject` beside
 * them is the whole package's.
 */
import { isObject } from '../../util/is-object';

/** True for an object that is not an array (a record of named fields, a class instance included). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return isObject(value) && !Array.isArray(value);
}

/** True for a string with at least one character (a name, an id). */
export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}
