/**
 * The ordering constraints of one registry, indexed by the ids they name, so
 * that `add` can tell whether a new registration closes a cycle by looking
 * only at what that registration reaches.
 *
 * @packageDocumentation
 */
import type { StoredRegistration } from './registration';

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
  private readonly namedBefore = new Map<string, Set<StoredRegistration>>();
  /** id -> registrations whose `after` names it. */
  private readonly namedAfter = new Map<string, Set<StoredRegistration>>();

  // The length checks skip the loops of a registration without constraints, the usual one: V8 walks a frozen array
  // (every list here is one) through the generic iterator, even an empty one, and that was a fifth of an add and its
  // disposer (`churn_k5_1ev`).

  /** Records the constraints of a registration that was stored. */
  add(registration: StoredRegistration): void {
    const { before, after } = registration;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut; the loop over an empty list does nothing either.
    if (before.length > 0) for (const id of before) file(this.namedBefore, id, registration);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut; the loop over an empty list does nothing either.
    if (after.length > 0) for (const id of after) file(this.namedAfter, id, registration);
  }

  /** Forgets the constraints of a registration that was removed; empty entries go, so removal releases everything. */
  remove(registration: StoredRegistration): void {
    const { before, after } = registration;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut; the loop over an empty list does nothing either.
    if (before.length > 0) for (const id of before) unfile(this.namedBefore, id, registration);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut; the loop over an empty list does nothing either.
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
  closesCycle(
    stored: StoredRegistration,
    replaced: StoredRegistration | undefined,
    byId: ReadonlyMap<string, StoredRegistration>,
  ): boolean {
    // Nothing can come before a registration that names no id in `after` and has no id of its own for others to
    // name: the common add, which thus runs none of the search. The search is a method of its own because its
    // closures make V8 allocate a context for the call's variables as soon as the call is entered.
    // Stryker disable next-line ConditionalExpression: a shortcut; hasPredecessor() says false for such a registration as well
    if (stored.after.length === 0 && stored.id === undefined) return false;
    return this.searchCycle(stored, replaced, byId);
  }

  /** The search of {@link ConstraintIndex.closesCycle}: a path from `stored` back to it, once something must come before it. */
  private searchCycle(
    stored: StoredRegistration,
    replaced: StoredRegistration | undefined,
    byId: ReadonlyMap<string, StoredRegistration>,
  ): boolean {
    const peer = (candidate: StoredRegistration | undefined): boolean =>
      candidate !== undefined && candidate !== replaced && candidate.stage === stored.stage && candidate.phase === stored.phase;
    const named = (id: string): StoredRegistration | undefined => {
      if (id === stored.id) return stored;
      const found = byId.get(id);
      return peer(found) ? found : undefined;
    };
    // `stored` is not in the index yet: the ids its own `after` names lead back to it.
    const backToStored = new Set(stored.after);
    const successors = (node: StoredRegistration, visit: (next: StoredRegistration) => void): void => {
      for (const id of node.before) {
        const other = named(id);
        if (other !== undefined && other !== node) visit(other);
      }
      // Stryker disable next-line ConditionalExpression: nothing is filed under an undefined id, so going on finds nothing
      if (node.id === undefined) return;
      if (node !== stored && backToStored.has(node.id)) visit(stored);
      const namingIt = this.namedAfter.get(node.id);
      // Stryker disable next-line ConditionalExpression: a registration naming its own id in `after` is already seen when walked
      if (namingIt !== undefined) for (const other of namingIt) if (other !== node && peer(other)) visit(other);
    };
    // Stryker disable next-line ConditionalExpression: a shortcut; without a predecessor the search finds no way back either
    if (!this.hasPredecessor(stored, named, peer)) return false;
    const seen = new Set<StoredRegistration>();
    const pending: StoredRegistration[] = [];
    let closes = false;
    const visit = (next: StoredRegistration): void => {
      if (next === stored) {
        closes = true;
        return;
      }
      // Stryker disable next-line ConditionalExpression: the stored registrations have no cycle, so one seen again is only walked again
      if (!seen.has(next)) {
        seen.add(next);
        pending.push(next);
      }
    };
    successors(stored, visit);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- visit() sets closes, which TypeScript's narrowing does not see
    while (!closes && pending.length > 0) successors(pending.pop() as StoredRegistration, visit);
    return closes;
  }

  /**
   * Whether some peer must come before `stored` (it names the peer in `after`, or the peer names it in `before`):
   * a shortcut of `closesCycle`, whose search finds no cycle when this says false, so saying true more often
   * changes no answer.
   */
  // Stryker disable all: see above
  private hasPredecessor(
    stored: StoredRegistration,
    named: (id: string) => StoredRegistration | undefined,
    peer: (candidate: StoredRegistration | undefined) => boolean,
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
  // Stryker restore all
}

function file(index: Map<string, Set<StoredRegistration>>, id: string, registration: StoredRegistration): void {
  let holders = index.get(id);
  if (holders === undefined) {
    holders = new Set();
    index.set(id, holders);
  }
  holders.add(registration);
}

function unfile(index: Map<string, Set<StoredRegistration>>, id: string, registration: StoredRegistration): void {
  const holders = index.get(id);
  if (holders === undefined) return;
  holders.delete(registration);
  if (holders.size === 0) index.delete(id);
}
