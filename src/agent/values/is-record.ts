import { isObject } from '../../util/is-object';

/** True for an object that is not an array (a record of named fields, a class instance included). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return isObject(value) && !Array.isArray(value);
}
