import { MiddlewareError } from './errors';

/** What ordering needs to know about a registration. */
export interface Orderable {
  /** Registration sequence number (lower = registered earlier). */
  readonly seq: number;
  /** The order key. */
  readonly order: number;
  /** Optional id, the name constraints refer to. */
  readonly id: string | undefined;
  /** Ids this one must precede (run outside of). */
  readonly before: readonly string[];
  /** Ids this one must follow (run inside of). */
  readonly after: readonly string[];
  /** Name for error messages. */
  readonly name: string;
}

/** Where the sort happens, for error messages. */
export interface OrderScope {
  /** Stage name. */
  readonly stage: string;
  /** Phase. */
  readonly phase: 'input' | 'wrap' | 'output';
}

/**
 * Sorts one level's registrations of one stage and phase.
 *
 * Resolution (SPEC MW-041): constraints first, then `order`, then registration
 * order. This is Kahn's topological sort in which, among the registrations
 * whose constraints are met, the one with the lowest `(order, seq)` goes next;
 * without constraints it is a plain sort by `(order, seq)`.
 * Constraints naming ids outside `items` are ignored here (the registry checks them).
 *
 * @throws MiddlewareError `ERR_ORDER_CYCLE` listing the cycle when the constraints cannot all hold.
 */
export function sortByConstraints<T extends Orderable>(items: readonly T[], scope: OrderScope): T[] {
  const byKey = (left: T, right: T): number => left.order - right.order || left.seq - right.seq;
  let constrained = false;
  for (const item of items) {
    if (item.before.length > 0 || item.after.length > 0) {
      constrained = true;
      break;
    }
  }
  if (!constrained) return [...items].sort(byKey);

  const byId = new Map<string, T>();
  for (const item of items) if (item.id !== undefined) byId.set(item.id, item);
  // Edge a -> b: a must come before b.
  const successors = new Map<T, Set<T>>();
  const indegree = new Map<T, number>();
  for (const item of items) {
    successors.set(item, new Set());
    indegree.set(item, 0);
  }
  const link = (from: T, to: T): void => {
    const set = successors.get(from) as Set<T>;
    if (from === to || set.has(to)) return;
    set.add(to);
    indegree.set(to, (indegree.get(to) as number) + 1);
  };
  for (const item of items) {
    for (const id of item.before) {
      const other = byId.get(id);
      if (other !== undefined) link(item, other);
    }
    for (const id of item.after) {
      const other = byId.get(id);
      if (other !== undefined) link(other, item);
    }
  }
  const ready = items.filter((item) => indegree.get(item) === 0);
  const sorted: T[] = [];
  while (ready.length > 0) {
    ready.sort(byKey);
    const item = ready.shift() as T;
    sorted.push(item);
    for (const successor of successors.get(item) as Set<T>) {
      const remaining = (indegree.get(successor) as number) - 1;
      indegree.set(successor, remaining);
      if (remaining === 0) ready.push(successor);
    }
  }
  if (sorted.length < items.length) throw cycleError(items.filter((item) => !sorted.includes(item)), successors, scope);
  return sorted;
}

function cycleError<T extends Orderable>(stuck: readonly T[], successors: Map<T, Set<T>>, scope: OrderScope): MiddlewareError {
  // Every stuck item still waits for a stuck predecessor, so walking predecessors
  // always closes a loop (walking successors can dead-end at an item that merely
  // waits behind the cycle).
  const predecessor = (node: T): T => stuck.find((candidate) => (successors.get(candidate) as Set<T>).has(node)) as T;
  const path: T[] = [];
  let node = stuck[0] as T;
  while (!path.includes(node)) {
    path.push(node);
    node = predecessor(node);
  }
  // The loop in run order (each before the next), starting from its earliest item.
  const loop = path.slice(path.indexOf(node)).reverse();
  const first = loop.reduce((best, item) => (stuck.indexOf(item) < stuck.indexOf(best) ? item : best));
  const start = loop.indexOf(first);
  const ordered = [...loop.slice(start), ...loop.slice(0, start)];
  const cycle = [...ordered, first].map((item) => item.id ?? item.name);
  return new MiddlewareError({
    code: 'ERR_ORDER_CYCLE',
    stage: scope.stage,
    phase: scope.phase,
    handler: first.name,
    message: `The ordering constraints of the ${scope.phase} handlers of stage "${scope.stage}" form a cycle: ${cycle.join(' -> ')} (each must run before the next). Remove one of these before/after constraints.`,
  });
}
