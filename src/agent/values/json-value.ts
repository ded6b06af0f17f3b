/**
 * The JSON form of a tool's value: what the model would receive once the
 * value is sent as JSON, computed up front so the history holds exactly that,
 * and so a value JSON cannot carry becomes a readable problem instead of an
 * exception in the middle of the run.
 */
import { setOwnEntry } from '../../util/own-entry';
import { enterPart, pathText, readProblem, startWalk, thrownText, WalkFailure, type PathStep, type Walk } from './value-walk';
import { isObject } from '../../util/is-object';

/** The JSON form of a value, or why it has none. */
export type JsonConversion = { readonly ok: true; readonly json: unknown } | { readonly ok: false; readonly problem: string };

/** Left out of an object, `null` in an array, as `JSON.stringify` does. */
const ABSENT: unique symbol = Symbol('absent');

/**
 * The value as `JSON.parse(JSON.stringify(value))` gives it, frozen, or the
 * first problem found (depth first, in key order): a BigInt, a cycle, a
 * function or symbol as the whole value, nesting deeper than 1000 levels, or
 * a getter or `toJSON()` that throws. `undefined` as the whole value is `null`.
 *
 * @param root - What the value is called in a problem's path.
 * @example
 * ```ts
 * toJsonValue({ when: new Date(0), skip: undefined }); // { ok: true, json: { when: '1970-01-01T00:00:00.000Z' } }
 * toJsonValue({ n: 1n }); // { ok: false, problem: 'value.n is a BigInt' }
 * ```
 */
export function toJsonValue(value: unknown, root = 'value'): JsonConversion {
  if (value === undefined) return { ok: true, json: null };
  const converting = startWalk(root);
  try {
    const json = convert(value, '', converting);
    if (json === ABSENT) return { ok: false, problem: `${root} is ${typeof value === 'symbol' ? 'a symbol' : 'a function'}` };
    return { ok: true, json };
  } catch (error) {
    if (error instanceof WalkFailure) return { ok: false, problem: error.problem };
    throw error;
  }
}

function convert(given: unknown, key: string, converting: Walk): unknown {
  const { root, steps } = converting;
  let value = given;
  if (isObject(value) || typeof value === 'bigint') value = applyToJson(value, key, root, steps);
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return finiteOrNull(value);
    case 'bigint':
      throw new WalkFailure(`${pathText(root, steps)} is a BigInt`);
    case 'undefined':
    case 'function':
    case 'symbol':
      return ABSENT;
    default:
      return value === null ? null : enterPart(value as object, converting, convertArrayOrEntries);
  }
}

/** The value its `toJSON` method returns, when it has one. */
function applyToJson(value: object | bigint, key: string, root: string, steps: readonly PathStep[]): unknown {
  let toJson: unknown;
  try {
    toJson = (value as { toJSON?: unknown }).toJSON;
  } catch (error) {
    throw new WalkFailure(readProblem(root, [...steps, 'toJSON'], error));
  }
  if (typeof toJson !== 'function') return value;
  try {
    return (toJson as (key: string) => unknown).call(value, key);
  } catch (error) {
    throw new WalkFailure(`${pathText(root, steps)}.toJSON() threw: ${thrownText(error)}`);
  }
}

function convertArrayOrEntries(value: object, converting: Walk): unknown {
  return Array.isArray(value) ? convertArray(value, converting) : convertEntries(value, converting);
}

function convertArray(value: readonly unknown[], converting: Walk): readonly unknown[] {
  const { length } = value;
  const json: unknown[] = [];
  for (let index = 0; index < length; index++) {
    converting.steps.push(index);
    const element = convert(value[index], String(index), converting);
    converting.steps.pop();
    json.push(element === ABSENT ? null : element);
  }
  return Object.freeze(json);
}

function convertEntries(value: object, converting: Walk): unknown {
  const primitive = unwrap(value);
  if (primitive !== ABSENT) return primitive;
  const json: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    converting.steps.push(key);
    const entry = convert((value as Record<string, unknown>)[key], key, converting);
    converting.steps.pop();
    if (entry !== ABSENT) setOwnEntry(json, key, entry);
  }
  return Object.freeze(json);
}

/** The primitive a Number, String or Boolean wrapper object stands for, as JSON takes it. */
function unwrap(value: object): unknown {
  if (value instanceof Number) return finiteOrNull(Number(value));
  if (value instanceof String) return String(value);
  if (value instanceof Boolean) return value.valueOf();
  return ABSENT;
}

/** JSON has no NaN or Infinity: they become null. */
function finiteOrNull(value: number): number | null {
  return Number.isFinite(value) ? value : null;
}

/** `JSON.stringify(value)` for a prompt or a transcript: `null` where it writes nothing (undefined, a function). It throws as `JSON.stringify` does. */
export function jsonText(value: unknown): string {
  // The library types say string, but JSON.stringify writes nothing (undefined) for undefined and functions.
  const text = JSON.stringify(value) as string | undefined;
  return text ?? 'null';
}
