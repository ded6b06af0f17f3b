/**
 * Keys of records built from outside data (model output, snapshots, tool
 * values, a caller's objects) as plain data: `JSON.parse` makes `"__proto__"`
 * an own key like any other, and so must every copy the package makes, or
 * the key vanishes and its value becomes the copy's prototype, lending the
 * copy properties no `Object.keys`, log or JSON text shows. Every record the
 * package fills key by key sets its keys through {@link setOwnEntry}, and a
 * record keyed by outside strings is read through {@link ownEntry}.
 *
 * @packageDocumentation
 */

/**
 * Sets `key` of `record` to `value` as an own, enumerable, writable and
 * configurable data property, as `JSON.parse`, object spread and
 * `Object.fromEntries` do; never as `record[key] = value`, which for
 * `__proto__` runs the setter that replaces the record's prototype, and
 * throws where a frozen `Object.prototype` holds the key read-only
 * (`constructor`, `toString`). No prototype is changed, `Object.prototype`
 * included.
 *
 * @example
 * ```ts
 * const copy: Record<string, unknown> = {};
 * setOwnEntry(copy, '__proto__', { isAdmin: true });
 * Object.keys(copy); // ['__proto__']
 * Object.getPrototypeOf(copy) === Object.prototype; // true
 * ```
 */
export function setOwnEntry(record: object, key: string, value: unknown): void {
  // Only a key the record already answers to (its own, or one its prototype has) can meet a setter or a
  // read-only property; every other key is added by the plain assignment, the fast path of an engine.
  if (key in record) Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
  else (record as Record<string, unknown>)[key] = value;
}

/**
 * The value of `record`'s own property `key`, or `undefined` when it has none:
 * a record keyed by outside strings (tool-use ids, names) answers for its own
 * keys only, never with what its prototype has (`__proto__`, `constructor`).
 *
 * @example
 * ```ts
 * ownEntry({}, 'constructor'); // undefined
 * ownEntry(JSON.parse('{"__proto__":1}'), '__proto__'); // 1
 * ```
 */
export function ownEntry(record: object, key: string): unknown {
  return Object.hasOwn(record, key) ? (record as Record<string, unknown>)[key] : undefined;
}
