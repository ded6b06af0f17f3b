/**
 * Deep-freezing a value in place, as the library does with the result the
 * Output phase receives (MW-038, {@link deepFreeze}) and with the state
 * snapshot, which must hold no reference cycle (MW-027,
 * {@link deepFreezeOrFindCycle}), so that no one can change it while the
 * library relies on it.
 *
 * @packageDocumentation
 */
import { freeze, isDraft, isDraftable } from 'immer';

/** What the walk finds in a value: nothing to visit, or the kind of container. */
const SKIP = 0;
const RECORD = 1;
const LIST = 2;
const COLLECTION = 3;
type Kind = typeof SKIP | typeof RECORD | typeof LIST | typeof COLLECTION;

/**
 * Deep-freezes `value` in place, visiting what immer drafts (plain objects'
 * own enumerable string keys, array items, Map values, Set members, immerable
 * instances) and skipping everything else (class instances, functions,
 * primitives). An object that is already frozen is taken as it is: its
 * contents are not visited, so a value the library produced costs one check.
 * A reference cycle is frozen as it is.
 */
export function deepFreeze(value: unknown): void {
  const kind = kindOf(value);
  if (kind !== SKIP) freezeDown(value as object, kind, 0);
}

/**
 * Deep-freezes `value` in place as {@link deepFreeze} does, unless its
 * unfrozen part holds a reference cycle: then it answers the path where the
 * cycle closes (`a.back.a`: the value at `a.back.a` is the one at `a`; a
 * cycle closing at the root itself is named by its last key) and leaves the
 * objects on that path, the root among them, unfrozen (what it finished
 * before is frozen). Finding the cycle and freezing are one walk: each
 * object is frozen when everything under it is done, so checking first and
 * freezing after would walk the value twice.
 *
 * @returns The path where a cycle closes, or undefined when there is none (and the value is frozen).
 */
export function deepFreezeOrFindCycle(value: unknown): string | undefined {
  const kind = kindOf(value);
  if (kind === SKIP) return undefined;
  const cycle = checkWalk(value as object, kind);
  return cycle === undefined ? undefined : cycle.map(segmentText).join('.');
}

/** Below this depth the walk of results recurses; deeper parts go through a walk with its own stack. */
const RECURSION_LIMIT = 500;

/**
 * The walk without the cycle check, for results (MW-038). Each object is
 * frozen before its children are visited, so a cycle ends at the object that
 * was frozen first. Why recursion here: a result is small and shallow, and
 * this costs a few property reads and one `Object.freeze` per object.
 */
function freezeDown(node: object, kind: Kind, depth: number): void {
  if (depth > RECURSION_LIMIT) {
    freezeWithStack(node);
    return;
  }
  freezeOne(node, kind);
  if (kind === LIST) {
    const items = node as readonly unknown[];
    // eslint-disable-next-line @typescript-eslint/prefer-for-of -- for-of would call the array's own iterator, which a handed-out array may override
    for (let index = 0; index < items.length; index++) {
      const child: unknown = items[index];
      const childKind = kindOf(child);
      if (childKind !== SKIP) freezeDown(child as object, childKind, depth + 1);
    }
  } else if (kind === COLLECTION) {
    (node as Map<unknown, unknown> | Set<unknown>).forEach((child: unknown) => {
      const childKind = kindOf(child);
      if (childKind !== SKIP) freezeDown(child as object, childKind, depth + 1);
    });
  } else {
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const child = record[key];
      const childKind = kindOf(child);
      if (childKind !== SKIP) freezeDown(child as object, childKind, depth + 1);
    }
  }
}

/** The walk of {@link freezeDown} past the recursion limit, with a stack of its own. */
function freezeWithStack(root: object): void {
  const pending: object[] = [root];
  while (pending.length > 0) {
    const node = pending.pop() as object;
    const kind = kindOf(node);
    if (kind === SKIP) continue;
    freezeOne(node, kind);
    const children = childrenOf(node, kind);
    // eslint-disable-next-line @typescript-eslint/prefer-for-of -- for-of would call the array's own iterator, which a handed-out array may override
    for (let index = 0; index < children.length; index++) {
      const child = children[index];
      if (kindOf(child) !== SKIP) pending.push(child as object);
    }
  }
}

/** The children of one object: an array's items, a Map's values, a Set's members, a record's own values. */
function childrenOf(node: object, kind: Kind): readonly unknown[] {
  if (kind === LIST) return node as readonly unknown[];
  if (node instanceof Map) return [...node.values()];
  if (node instanceof Set) return [...node];
  return Object.values(node);
}

/**
 * One object being walked: its keys (a record's own keys, a Map's keys; none for an array or a Set, whose keys
 * are the indexes), its values (an array itself, a Map's values, a Set's members; none for a record, whose values
 * are read as the walk reaches them) and the index of the next child.
 */
interface Frame {
  readonly node: object;
  readonly kind: Kind;
  readonly keys: readonly unknown[] | undefined;
  readonly values: readonly unknown[] | undefined;
  readonly count: number;
  next: number;
}

function frameOf(node: object, kind: Kind): Frame {
  let keys: unknown[] | undefined;
  let values: readonly unknown[] | undefined;
  if (kind === LIST) values = node as readonly unknown[];
  else if (node instanceof Map) {
    keys = [...node.keys()];
    values = [...node.values()];
  } else if (node instanceof Set) values = [...node];
  else keys = Object.keys(node);
  return { node, kind, keys, values, count: (keys ?? (values as readonly unknown[])).length, next: 0 };
}

/**
 * The walk with the cycle check, for the state snapshot (MW-027): depth first with a stack of its own (a state
 * of any depth), remembering the objects on the current path; an unfrozen object met again while it is on the
 * path closes a cycle. Each object is frozen when everything under it is done, so an object frozen already is
 * either done or the caller's, and is skipped; when a cycle is found, the parts finished before it are frozen
 * and the objects on the path (the root among them) are not.
 *
 * @returns The path of a cycle (keys as found), else undefined.
 */
function checkWalk(root: object, rootKind: Kind): unknown[] | undefined {
  const onPath = new Set<object>();
  onPath.add(root);
  const path: unknown[] = [];
  const stack: Frame[] = [frameOf(root, rootKind)];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    const index = frame.next;
    if (index === frame.count) {
      onPath.delete(frame.node);
      freezeOne(frame.node, frame.kind);
      stack.pop();
      path.pop();
      continue;
    }
    frame.next = index + 1;
    const key = frame.keys === undefined ? index : frame.keys[index];
    const child = frame.values === undefined ? (frame.node as Record<string, unknown>)[key as string] : frame.values[index];
    const kind = kindOf(child);
    if (kind === SKIP) continue;
    if (onPath.has(child as object)) return [...path, key];
    path.push(key);
    onPath.add(child as object);
    stack.push(frameOf(child as object, kind));
  }
  return undefined;
}

/**
 * What the walk does with `value`: skip it (not an object, frozen already, a
 * live draft, something immer does not draft, or something that cannot be
 * inspected without an error), or visit it as a record, an array, or a Map or
 * Set. Plain objects and arrays, the common case, are recognised by their
 * prototype without asking immer.
 */
function kindOf(value: unknown): Kind {
  if (value === null || typeof value !== 'object') return SKIP;
  try {
    return kindOfObject(value);
  } catch {
    // An exotic object whose traps throw (a Proxy guarding a remote or lazy value) is handed on as it is (MW-038).
    return SKIP;
  }
}

function kindOfObject(value: object): Kind {
  if (Object.isFrozen(value) || isDraft(value)) return SKIP;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype === Object.prototype || prototype === null) return RECORD;
  if (Array.isArray(value)) return LIST;
  if (value instanceof Map || value instanceof Set) return COLLECTION;
  return isDraftable(value) ? RECORD : SKIP;
}

/** Freezes one object; a Map or Set also gets mutators that throw (immer's frozen collections). */
function freezeOne(node: object, kind: Kind): void {
  if (kind === COLLECTION) freeze(node);
  else Object.freeze(node);
}

/** A key as a path segment: strings and numbers as they are, other Map keys described. */
function segmentText(key: unknown): string {
  if (typeof key === 'string' || typeof key === 'number') return String(key);
  return `<${typeof key} key>`;
}
