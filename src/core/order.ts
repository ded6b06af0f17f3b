/**
 * The order of the handlers of one stage and phase within one scope level
 * (MW-041, MW-042): the sort that resolution runs (constraints, then
 * `order`, then registration order) and the index of the constraints of one
 * registry, with which `add` tells whether a new registration closes a
 * cycle by looking only at what that registration reaches.
 *
 * @packageDocumentation
 */
import type { MiddlewareError } from './errors';
import { orderCycle } from './messages';
import type { Phase } from './types';

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
  readonly phase: Phase;
}

/** An {@link Orderable} with the stage and phase whose order it joins, as the constraint index files it. */
export interface Constrained extends Orderable {
  /** The stage (compared by identity). */
  readonly stage: object;
  /** The phase. */
  readonly phase: Phase;
}

/**
 * Sorts one level's registrations of one stage and phase.
 *
 * Resolution (SPEC MW-041): constraints first, then `order`, then registration
 * order. This is Kahn's topological sort in which, among the registrations
 * whose constraints are met, the one with the lowest `(order, seq)` goes next;
 * without constraints it is a plain sort by `(order, seq)`. The ready set is a
 * binary heap, so the sort costs O((n + e) log n) for n registrations and e
 * constraint edges.
 * Constraints naming ids outside `items` are ignored here (the registry checks them).
 *
 * @throws MiddlewareError `ERR_ORDER_CYCLE` listing the cycle when the constraints cannot all hold.
 */
export function sortByConstraints<T extends Orderable>(items: readonly T[], scope: OrderScope): T[] {
  // Without constraints, Kahn's sort below takes the items in (order, seq) order too: a plain sort is its shortcut.
  let constrained = false;
  for (const item of items) {
    if (item.before.length > 0 || item.after.length > 0) {
      constrained = true;
      break;
    }
  }
  if (!constrained) return [...items].sort(byKey);

  const count = items.length;
  const byId = new Map<string, number>();
  for (let index = 0; index < count; index++) {
    const id = (items[index] as T).id;
    if (id !== undefined) byId.set(id, index);
  }
  // Edge a -> b: a must come before b. Indexes into `items`. An edge given twice (a before b, b after a) counts
  // twice in b's indegree and is walked twice when a is placed, so it needs no deduplication.
  const successors: number[][] = Array.from({ length: count }, () => []);
  const indegree = new Array<number>(count).fill(0);
  const link = (from: number, to: number): void => {
    if (from === to) return;
    (successors[from] as number[]).push(to);
    indegree[to] = (indegree[to] as number) + 1;
  };
  for (let index = 0; index < count; index++) {
    const item = items[index] as T;
    for (const id of item.before) {
      const other = byId.get(id);
      if (other !== undefined) link(index, other);
    }
    for (const id of item.after) {
      const other = byId.get(id);
      if (other !== undefined) link(other, index);
    }
  }
  const ready = new IndexHeap((left, right) => byKey(items[left] as T, items[right] as T));
  for (let index = 0; index < count; index++) if (indegree[index] === 0) ready.push(index);
  const sorted: T[] = [];
  while (ready.size > 0) {
    const index = ready.pop();
    sorted.push(items[index] as T);
    for (const successor of successors[index] as number[]) {
      const remaining = (indegree[successor] as number) - 1;
      indegree[successor] = remaining;
      if (remaining === 0) ready.push(successor);
    }
  }
  // The items left waiting (stuck) are exactly those whose indegree never reached 0.
  if (sorted.length < count) throw cycleError(items, successors, indegree, scope);
  return sorted;
}

function byKey(left: Orderable, right: Orderable): number {
  return left.order - right.order || left.seq - right.seq;
}

/** A binary min-heap of indexes under a comparison. */
class IndexHeap {
  readonly #heap: number[] = [];

  readonly #compare: (left: number, right: number) => number;

  constructor(compare: (left: number, right: number) => number) {
    this.#compare = compare;
  }

  get size(): number {
    return this.#heap.length;
  }

  push(value: number): void {
    const heap = this.#heap;
    let position = heap.length;
    heap.push(value);
    while (position > 0) {
      const parent = (position - 1) >> 1;
      if (this.#compare(heap[parent] as number, value) <= 0) break;
      heap[position] = heap[parent] as number;
      position = parent;
    }
    heap[position] = value;
  }

  /** Removes and returns the smallest index; the heap must not be empty. */
  pop(): number {
    const heap = this.#heap;
    const top = heap[0] as number;
    const last = heap.pop() as number;
    const size = heap.length;
    if (size === 0) return top;
    let position = 0;
    for (;;) {
      const left = 2 * position + 1;
      if (left >= size) break;
      const right = left + 1;
      const child = right < size && this.#compare(heap[right] as number, heap[left] as number) < 0 ? right : left;
      if (this.#compare(last, heap[child] as number) <= 0) break;
      heap[position] = heap[child] as number;
      position = child;
    }
    heap[position] = last;
    return top;
  }
}

function cycleError(
  items: readonly Orderable[],
  successors: readonly (readonly number[])[],
  indegree: readonly number[],
  scope: OrderScope,
): MiddlewareError {
  // The stuck items, in the order given; `rank` is each one's position among them.
  const stuck: number[] = [];
  const rank = new Map<number, number>();
  for (let index = 0; index < items.length; index++) {
    if (indegree[index] === 0) continue;
    rank.set(index, stuck.length);
    stuck.push(index);
  }
  // Every stuck item still waits for a stuck predecessor, so walking predecessors
  // always closes a loop (walking successors can dead-end at an item that merely
  // waits behind the cycle). The predecessor taken is the earliest stuck one.
  const predecessor = new Map<number, number>();
  for (const index of stuck) {
    for (const successor of successors[index] as number[]) {
      if (rank.has(successor) && !predecessor.has(successor)) predecessor.set(successor, index);
    }
  }
  const seen = new Set<number>();
  let node = stuck[0] as number;
  while (!seen.has(node)) {
    seen.add(node);
    node = predecessor.get(node) as number;
  }
  // `node` is on the loop: walk it once more, then turn it into run order (each before the next).
  const loop: number[] = [];
  let current = node;
  do {
    loop.push(current);
    current = predecessor.get(current) as number;
  } while (current !== node);
  loop.reverse();
  // Start from the loop's earliest item. Ranks are unique and a rank past the end is undefined, never lower,
  // so `<=` for `<` in either comparison changes nothing.
  let start = 0;
  for (let position = 1; position < loop.length; position++) {
    if ((rank.get(loop[position] as number) as number) < (rank.get(loop[start] as number) as number)) start = position;
  }
  const ordered = [...loop.slice(start), ...loop.slice(0, start)];
  const first = items[ordered[0] as number] as Orderable;
  const cycle = [...ordered, ordered[0] as number].map((index) => {
    const item = items[index] as Orderable;
    return item.id ?? item.name;
  });
  return orderCycle(scope.stage, scope.phase, first.name, cycle);
}

/**
 * Who names which id in `before` and `after`, over every registration of
 * one registry (any stage and phase).
 *
 * Why an index: checking each add by sorting every registration of its phase
 * made n constrained adds cost O(n² log n); with the index an add costs what
 * its own constraints reach.
 */
export class ConstraintIndex {
  /** id -> registrations whose `before` names it. */
  private readonly namedBefore = new Map<string, Set<Constrained>>();
  /** id -> registrations whose `after` names it. */
  private readonly namedAfter = new Map<string, Set<Constrained>>();

  // The length checks skip the loops of a registration without constraints, the usual one: V8 walks a frozen array
  // (every list here is one) through the generic iterator, even an empty one, and that was a fifth of an add and its
  // disposer (`churn_k5_1ev`).

  /** Records the constraints of a registration that was stored. */
  add(registration: Constrained): void {
    const { before, after } = registration;
    if (before.length > 0) for (const id of before) file(this.namedBefore, id, registration);
    if (after.length > 0) for (const id of after) file(this.namedAfter, id, registration);
  }

  /** Forgets the constraints of a registration that was removed; empty entries go, so removal releases everything. */
  remove(registration: Constrained): void {
    const { before, after } = registration;
    if (before.length > 0) for (const id of before) unfile(this.namedBefore, id, registration);
    if (after.length > 0) for (const id of after) unfile(this.namedAfter, id, registration);
  }

  /**
   * Whether storing `stored` (in place of `replaced`, if any) closes an
   * ordering cycle among the registrations of its stage and phase. `byId`
   * holds the registrations of this registry by id.
   *
   * The registrations already stored have no cycle (each add was checked, and
   * removals only drop edges), so a new cycle runs through `stored`: it needs
   * an edge into `stored` and one out of it, and a path from one of its
   * successors back to it. Only that path is searched.
   */
  closesCycle(stored: Constrained, replaced: Constrained | undefined, byId: ReadonlyMap<string, Constrained>): boolean {
    // Nothing can come before a registration that names no id in `after` and has no id of its own for others to
    // name: the common add, which thus runs none of the search. The search is a method of its own because its
    // closures make V8 allocate a context for the call's variables as soon as the call is entered.
    if (stored.after.length === 0 && stored.id === undefined) return false;
    return this.#searchCycle(stored, replaced, byId);
  }

  /** The search of {@link ConstraintIndex.closesCycle}: a path from `stored` back to it, once something must come before it. */
  #searchCycle(stored: Constrained, replaced: Constrained | undefined, byId: ReadonlyMap<string, Constrained>): boolean {
    const peer = (candidate: Constrained | undefined): boolean =>
      candidate !== undefined && candidate !== replaced && candidate.stage === stored.stage && candidate.phase === stored.phase;
    const named = (id: string): Constrained | undefined => {
      if (id === stored.id) return stored;
      const found = byId.get(id);
      return peer(found) ? found : undefined;
    };
    // `stored` is not in the index yet: the ids its own `after` names lead back to it.
    const backToStored = new Set(stored.after);
    const successors = (node: Constrained, visit: (next: Constrained) => void): void => {
      for (const id of node.before) {
        const other = named(id);
        if (other !== undefined && other !== node) visit(other);
      }
      if (node.id === undefined) return;
      if (node !== stored && backToStored.has(node.id)) visit(stored);
      const namingIt = this.namedAfter.get(node.id);
      if (namingIt !== undefined) for (const other of namingIt) if (other !== node && peer(other)) visit(other);
    };
    if (!this.#hasPredecessor(stored, named, peer)) return false;
    const seen = new Set<Constrained>();
    const pending: Constrained[] = [];
    let closes = false;
    const visit = (next: Constrained): void => {
      if (next === stored) {
        closes = true;
        return;
      }
      if (!seen.has(next)) {
        seen.add(next);
        pending.push(next);
      }
    };
    successors(stored, visit);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- visit() sets closes, which TypeScript's narrowing does not see
    while (!closes && pending.length > 0) successors(pending.pop() as Constrained, visit);
    return closes;
  }

  /**
   * Whether some peer must come before `stored` (it names the peer in `after`, or the peer names it in `before`):
   * a shortcut of `closesCycle`, whose search finds no cycle when this says false, so saying true more often
   * changes no answer.
   */
  #hasPredecessor(
    stored: Constrained,
    named: (id: string) => Constrained | undefined,
    peer: (candidate: Constrained | undefined) => boolean,
  ): boolean {
    for (const id of stored.after) {
      const other = named(id);
      if (other !== undefined && other !== stored) return true;
    }
    if (stored.id === undefined) return false;
    for (const other of this.namedBefore.get(stored.id) ?? []) {
      if (other !== stored && peer(other)) return true;
    }
    return false;
  }
}

function file(index: Map<string, Set<Constrained>>, id: string, registration: Constrained): void {
  let holders = index.get(id);
  if (holders === undefined) {
    holders = new Set();
    index.set(id, holders);
  }
  holders.add(registration);
}

function unfile(index: Map<string, Set<Constrained>>, id: string, registration: Constrained): void {
  const holders = index.get(id);
  if (holders === undefined) return;
  holders.delete(registration);
  if (holders.size === 0) index.delete(id);
}
