/**
 * Copy-once freezing for values entering the agent: the caller's objects are
 * copied (so the freeze never reaches them), the copies frozen, and anything
 * already frozen taken as it is (so a value is frozen once, however often it moves).
 * The model state a caller gives and the results handlers make are frozen here too.
 */
import { describeValue } from '../../util/describe-value';
import { setOwnEntry } from '../../util/own-entry';
import { cannotCopy, invalid } from '../errors';
import type { AgentEvent } from '../types/stages';
import { isModelResult, isToolResult } from '../stages';
import { enterPart, readProblem, startWalk, WalkFailure, type Walk } from './value-walk';
import { isRecord } from './value-shapes';

/** The empty list, frozen: one array for every empty list the kit hands out (no messages, bundles, budgets, blocks). */
export const NONE: readonly never[] = /*#__PURE__*/ Object.freeze([]);

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/**
 * Returns a deeply frozen copy of plain data (arrays and plain objects).
 * Already-frozen values, primitives and non-plain objects (class instances,
 * functions) are returned as they are: a frozen value is taken to be frozen
 * all the way down, as immer does, and instances are not data. Each element
 * and own enumerable property is read once.
 *
 * @param path - What the value is, for the error (`input`, `options.messages`).
 * @param refuse - The error for a value that cannot be copied, from the problem naming the part and the thrown
 *   value (the agent's `ERR_INVALID_OPTIONS` unless given).
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` naming the part, when the value contains a cycle, is nested
 *   deeper than 1000 levels, or reading a part of it throws (the thrown value is the `cause`).
 * @example
 * ```ts
 * const callerMessages = [{ role: 'user', content: [] }];
 * const messages = frozenCopy(callerMessages, 'messages'); // the caller's array stays mutable
 * ```
 */
export function frozenCopy<T>(value: T, path = 'value', refuse: (problem: string, cause: unknown) => Error = cannotCopy): T {
  // A primitive is frozen too.
  let frozen = false;
  try {
    frozen = Object.isFrozen(value);
  } catch {
    // A value that cannot even say whether it is frozen is reported by the walk below.
  }
  // The common case (a frozen history, frozen specs) allocates nothing.
  if (frozen) return value;
  const copying = startWalk(path);
  try {
    return copyPart(value, copying) as T;
  } catch (error) {
    if (error instanceof WalkFailure) throw refuse(error.problem, error.cause);
    throw error;
  }
}

function copyPart(value: unknown, copying: Walk): unknown {
  return value === null || typeof value !== 'object' ? value : enterPart(value, copying, copyObjectOrArray);
}

function copyObjectOrArray(value: object, copying: Walk): unknown {
  if (Object.isFrozen(value)) return value;
  if (Array.isArray(value)) return copyArray(value, copying);
  return isPlainObject(value) ? copyObject(value, copying) : value;
}

function copyArray(value: readonly unknown[], copying: Walk): readonly unknown[] {
  const { length } = value;
  const copy: unknown[] = [];
  for (let index = 0; index < length; index++) {
    copying.steps.push(index);
    copy.push(copyPart(value[index], copying));
    copying.steps.pop();
  }
  return Object.freeze(copy);
}

function copyObject(value: object, copying: Walk): object {
  const copy: Record<string, unknown> = Object.getPrototypeOf(value) === null ? (Object.create(null) as Record<string, unknown>) : {};
  for (const key of Object.keys(value)) {
    copying.steps.push(key);
    setOwnEntry(copy, key, copyPart((value as Record<string, unknown>)[key], copying));
    copying.steps.pop();
  }
  return Object.freeze(copy);
}

/**
 * The model state a caller gives (or assigns), as a frozen plain object: a
 * class instance's own enumerable properties are taken into a plain object first.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when it is not an object or cannot be copied.
 */
export function frozenRecordCopy(value: unknown, path: string): Record<string, unknown> {
  if (!isRecord(value)) throw invalid(`${path} must be a plain object, got ${describeValue(value)}`);
  let plain: object = value;
  try {
    const prototype = Object.getPrototypeOf(value) as unknown;
    if (prototype !== Object.prototype && prototype !== null) plain = { ...value };
  } catch (error) {
    throw cannotCopy(readProblem(path, [], error), error);
  }
  return frozenCopy(plain as Record<string, unknown>, path);
}

/**
 * A model or tool result as the loop keeps it: frozen. The terminals' own
 * results are; one a handler made is copied (a tool result's `error` kept as
 * it is) before it is yielded, so no one downstream can change what the loop goes on with.
 */
export function freezeResultEvent(event: AgentEvent): AgentEvent {
  if (isModelResult(event)) return frozenCopy(event, 'modelResult');
  if (!isToolResult(event) || (Object.isFrozen(event) && Object.isFrozen(event.toolResult))) return event;
  return Object.freeze({ ...event, toolResult: frozenCopy(event.toolResult, 'toolResult') });
}
