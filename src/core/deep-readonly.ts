/**
 * The type of a value the library has taken over (SPEC MW-038): what the
 * deep freeze of MW-027 freezes is read-only in the type as well, so a write
 * that would throw at run time fails to compile instead.
 *
 * @packageDocumentation
 */

/**
 * Values the deep freeze leaves as they are (immer does not draft them), so
 * their own methods may still change them: functions and classes, dates,
 * regular expressions, promises, binary buffers and their views, weak collections.
 */
type KeptAsIs =
  | ((...parameters: never[]) => unknown)
  | (abstract new (...parameters: never[]) => unknown)
  | Date
  | RegExp
  | PromiseLike<unknown>
  | ArrayBuffer
  | ArrayBufferView
  | WeakMap<object, unknown>
  | WeakSet<object>;

/**
 * `T` as the library holds it once taken over: plain objects, arrays and
 * tuples become read-only all the way down, a Map a `ReadonlyMap` with
 * read-only values (its keys are not frozen), a Set a `ReadonlySet` of
 * read-only members. Primitives, functions, dates, regular expressions,
 * promises, binary buffers and weak collections stay as they are, as the
 * freeze leaves them. Other class instances get read-only properties too:
 * a type cannot tell them from plain objects. `any` stays `any`.
 *
 * Read-only properties do not stop a value from being passed where the
 * mutable type is expected; read-only arrays, Maps and Sets do, so give such
 * a part to code that changes it as a copy (`[...items]`).
 *
 * @example
 * ```ts
 * const frozen: DeepReadonly<{ tags: string[] }> = { tags: ['a'] };
 * const tags: string[] = [...frozen.tags, 'b'];
 * ```
 */
export type DeepReadonly<T> = 0 extends 1 & T
  ? T
  : // Maps and Sets first: structurally, a Map with object keys is also a WeakMap (a Set a WeakSet).
    T extends ReadonlyMap<infer TKey, infer TValue>
    ? ReadonlyMap<TKey, DeepReadonly<TValue>>
    : T extends ReadonlySet<infer TMember>
      ? ReadonlySet<DeepReadonly<TMember>>
      : T extends KeptAsIs
        ? T
        : T extends object
          ? { readonly [TKey in keyof T]: DeepReadonly<T[TKey]> }
          : T;
