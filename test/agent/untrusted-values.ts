/**
 * fast-check arbitraries of data from outside (model output, snapshots,
 * provider parts), whose keys include the names a copy by `=` gets wrong,
 * and the checks the fuzz tests make of what the package gives back.
 */
import fc from 'fast-check';
import { MiddlewareError } from '../../src/core/index';

/** Keys that `Object.prototype` has (and a setter for one), mixed with ordinary ones. */
export const key: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf') },
  { weight: 2, arbitrary: fc.constantFrom('q', 'isAdmin', 'id') },
  { weight: 2, arbitrary: fc.string({ maxLength: 4 }) },
);

/**
 * A JSON value as `JSON.parse` gives it: every key an own key (`__proto__`
 * included), objects of prototype `Object.prototype`, no `-0`.
 */
export const jsonValue: fc.Arbitrary<unknown> = fc
  .letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string({ maxLength: 6 }),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(key, tie('value'), { maxKeys: 4, noNullPrototype: true }),
    ),
  }))
  .value.map((value) => JSON.parse(JSON.stringify(value)) as unknown);

/** A JSON object (as `JSON.parse` gives it), with keys of {@link key}. */
export const jsonObject: fc.Arbitrary<Record<string, unknown>> = fc
  .dictionary(key, jsonValue, { maxKeys: 4, noNullPrototype: true })
  .map((value) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>);

/** Anything a JavaScript caller or a broken provider could hand over: objects without a prototype and odd keys included. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  jsonValue,
  fc.anything({ key, maxDepth: 3, maxKeys: 4, withNullPrototype: true, withObjectString: true, withBoxedValues: true }),
);

/** The text split into pieces at the given cut points: the deltas a model may stream it in. */
export function pieces(text: string, cuts: readonly number[]): string[] {
  const at = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const parts: string[] = [];
  let from = 0;
  for (const cut of at) {
    parts.push(text.slice(from, cut));
    from = cut;
  }
  parts.push(text.slice(from));
  return parts.filter((part) => part.length > 0);
}

/**
 * The paths inside `value` of objects whose prototype is not the one their
 * kind should have: `Array.prototype` for an array, `Object.prototype` for a
 * plain object (or `null`, when `allowNull`: a copy of an object without one).
 * Objects of other kinds (a boxed value a caller passed) keep theirs.
 */
export function foreignPrototypes(value: unknown, allowNull = false, path = 'value', seen = new Set<object>()): string[] {
  if (typeof value !== 'object' || value === null || seen.has(value)) return [];
  seen.add(value);
  const prototype = Object.getPrototypeOf(value) as unknown;
  const plain = Object.prototype.toString.call(value) === '[object Object]';
  const expected = Array.isArray(value)
    ? prototype === Array.prototype
    : !plain || prototype === Object.prototype || (allowNull && prototype === null);
  const own = expected ? [] : [path];
  return own.concat(
    ...Object.keys(value).map((name) =>
      foreignPrototypes((value as Record<string, unknown>)[name], allowNull, `${path}[${JSON.stringify(name)}]`, seen),
    ),
  );
}

/** What escaped a call: `'none'`, the code of a MiddlewareError, or the thrown value itself. */
export function escaped(run: () => unknown): unknown {
  try {
    run();
    return 'none';
  } catch (error) {
    return MiddlewareError.isInstance(error) ? error.code : error;
  }
}

/** What escaped a promise: `'none'`, the code of a MiddlewareError, or the rejection itself. */
export async function escapedAsync(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
    return 'none';
  } catch (error) {
    return MiddlewareError.isInstance(error) ? error.code : error;
  }
}
