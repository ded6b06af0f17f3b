/**
 * `createStateKey()`: typed, optionally checked keys of the invocation state
 * (MW-317, MW-318). A key holds nothing itself: it reads and writes one
 * property of the run's own `invocationState` object, so every stage of the
 * run shares what it writes by reference, as with the untyped object.
 */
import type { Schema } from '../../core/index';
import { isObject } from '../../util/is-object';
import { invalidStateKey, stateValueRejected } from '../errors';
import type { StateCarrier, StateKey } from '../types/state-key';

/**
 * A typed key of the invocation state under `name`. With `schema` (a zod
 * schema, or anything with a synchronous `safeParse`), every value read or
 * written is checked and the parsed value is what `get` answers and `set`
 * stores.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`handler: 'createStateKey'`) for an empty name or a schema without `safeParse`.
 * @example
 * ```ts
 * const ModelCalls = createStateKey<number>('modelCalls');
 * registry.add(InvokeModelStage.Input, (context) => {
 *   ModelCalls.set(context, (ModelCalls.get(context) ?? 0) + 1);
 *   return context;
 * });
 * ```
 */
export function createStateKey<TValue>(name: string, schema?: Schema<TValue>): StateKey<TValue> {
  if (typeof name !== 'string' || name.length === 0) throw invalidStateKey('name must be a non-empty string', name);
  if (schema !== undefined && (!isObject(schema) || typeof (schema as { safeParse?: unknown }).safeParse !== 'function'))
    throw invalidStateKey('schema must have a safeParse method (a zod schema, say)', schema);
  const check = (value: unknown, access: 'read' | 'written'): TValue => {
    if (schema === undefined) return value as TValue;
    const outcome = schema.safeParse(value);
    if (!outcome.success) throw stateValueRejected(name, access, outcome.error);
    return outcome.data;
  };
  return Object.freeze({
    name,
    get(carrier: StateCarrier): TValue | undefined {
      const state = stateOf(carrier, name);
      return Object.hasOwn(state, name) ? check(state[name], 'read') : undefined;
    },
    set(carrier: StateCarrier, value: TValue): TValue {
      const state = stateOf(carrier, name);
      const stored = check(value, 'written');
      // Defined rather than assigned, so that a key named __proto__ is an own property like any other.
      Object.defineProperty(state, name, { value: stored, writable: true, enumerable: true, configurable: true });
      return stored;
    },
    has(carrier: StateCarrier): boolean {
      return Object.hasOwn(stateOf(carrier, name), name);
    },
  });
}

/** The carrier's invocation state. */
function stateOf(carrier: StateCarrier, name: string): Record<string, unknown> {
  const state = isObject(carrier) ? (carrier as { invocationState?: unknown }).invocationState : undefined;
  if (!isObject(state)) throw invalidStateKey(`key "${name}" was given no context with an invocationState object`, carrier);
  return state as Record<string, unknown>;
}
