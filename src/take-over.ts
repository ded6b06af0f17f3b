/**
 * Taking a value over: deep-freezing it in place, as the library does with
 * the state snapshot (SPEC MW-027) and with the result the Output phase
 * receives (MW-038), so that no one can change it while the library relies on it.
 *
 * @packageDocumentation
 */
import { freeze, isDraft, isDraftable } from 'immer';

/** One object being walked: its children as [path segment, value] pairs. */
interface Frame {
  readonly node: object;
  readonly segment: string;
  readonly children: readonly (readonly [string, unknown])[];
  next: number;
}

const ON_PATH = 1;
const DONE = 2;

/**
 * Deep-freezes `value` in place, visiting what immer drafts (plain objects'
 * own enumerable string keys, array items, Map values, Set members, immerable
 * instances) and skipping everything else (class instances, functions,
 * primitives). An object that is already frozen is taken as it is: its
 * contents are not visited, so a value the library produced costs one check.
 *
 * Walks with its own stack, so a deep value cannot exhaust the call stack.
 *
 * @param rejectCycles - When true and the unfrozen part holds a reference
 *   cycle, nothing is frozen and the path where the cycle closes is returned
 *   (`a.back.a`: the value at `a.back.a` is the one at `a`; a cycle closing at
 *   the root itself is named by its last key).
 * @returns The path where a cycle closes when `rejectCycles` found one, else undefined.
 */
export function takeOver(value: unknown, rejectCycles = false): string | undefined {
  if (!walkable(value)) return undefined;
  const state = new Map<object, number>([[value, ON_PATH]]);
  const frozenLast: object[] = [];
  const stack: Frame[] = [{ node: value, segment: '', children: childrenOf(value), next: 0 }];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.next === frame.children.length) {
      state.set(frame.node, DONE);
      frozenLast.push(frame.node);
      stack.pop();
      continue;
    }
    const [segment, child] = frame.children[frame.next++] as readonly [string, unknown];
    if (!walkable(child)) continue;
    const seen = state.get(child);
    if (seen === DONE) continue;
    if (seen === ON_PATH) {
      if (rejectCycles) return [...stack.slice(1).map((open) => open.segment), segment].join('.');
      continue;
    }
    state.set(child, ON_PATH);
    stack.push({ node: child, segment, children: childrenOf(child), next: 0 });
  }
  // Children first, so that an object is frozen only once everything under it is.
  for (const node of frozenLast) freeze(node);
  return undefined;
}

/** Whether the walk goes into `value`: a draftable object that is not frozen yet (and not a live draft). */
function walkable(value: unknown): value is object {
  return value !== null && typeof value === 'object' && !Object.isFrozen(value) && !isDraft(value) && isDraftable(value);
}

function childrenOf(node: object): (readonly [string, unknown])[] {
  if (Array.isArray(node)) {
    const items: (readonly [string, unknown])[] = [];
    // forEach skips holes, as immer's freeze does.
    node.forEach((item: unknown, index) => items.push([String(index), item]));
    return items;
  }
  if (node instanceof Map) return [...node].map(([key, item]) => [keyText(key), item] as const);
  if (node instanceof Set) return [...node].map((item, index) => [String(index), item] as const);
  const record = node as Record<string, unknown>;
  return Object.keys(record).map((key) => [key, record[key]] as const);
}

/** A Map key as a path segment: strings and numbers as they are, other keys described. */
function keyText(key: unknown): string {
  if (typeof key === 'string' || typeof key === 'number') return String(key);
  return `<${typeof key === 'object' && key !== null ? 'object' : typeof key} key>`;
}
