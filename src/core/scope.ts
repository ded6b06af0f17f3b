/**
 * One registry's own level of a scope chain: the registrations, the
 * instrumentations and the contributions added to it, the stamps its changes
 * leave, and the checks that look up its ancestry (an id or a contribution id
 * an ancestor already has). `registry.ts` checks the arguments of each public
 * call and hands the change to its scope; resolution (`resolve.ts`) reads the
 * scopes of a registry and its ancestors, root first.
 *
 * @packageDocumentation
 */
import * as messages from './messages';
import type { Instrumentation } from './instrumentation';
import type { AnyStage, Disposer, Phase } from './types';
import type { Registrar } from './bundle';
import {
  createContribution,
  duplicated,
  resolveContributions,
  type Contribution,
  type ProvidingScope,
  type StoredContribution,
} from './contributions';
import { ConstraintIndex, sortByConstraints } from './order';
import { createRegistration, errorSiteOf, lastTick, takePlace, tick, type StoredRegistration } from './registration';
import { isObject } from '../util/is-object';

/** One registry of a scope chain, as resolution reads it. */
export interface Scope extends ProvidingScope {
  /** Its registrations, by stage. */
  readonly byStage: ReadonlyMap<AnyStage, readonly StoredRegistration[]>;
  /** Every registration of it with an id, on any stage. */
  readonly ids: ReadonlyMap<string, StoredRegistration>;
  /** Its instrumentations. */
  readonly instrumentations: ReadonlySet<Instrumentation>;
}

/** One registry's registrations, instrumentations and contributions, with its ancestry. */
export class RegistryScope implements Scope {
  /**
   * Each stage's registrations in the order they were stored. Why a list, not a set: adding a handler and removing
   * it again (`churn_k5_1ev`) is a push and a pop on a list, where a set leaves a deleted entry behind each time
   * and rebuilds its table every few adds; removal looks at the last entry first, then searches from the front.
   */
  readonly byStage = new Map<AnyStage, StoredRegistration[]>();
  readonly ids = new Map<string, StoredRegistration>();
  readonly instrumentations = new Set<Instrumentation>();
  /** Contributions by key name, each set in the order they were provided. */
  readonly provided = new Map<string, Set<StoredContribution>>();
  /** This scope and its ancestors', root first (a registry's ancestry never changes). */
  readonly chain: readonly RegistryScope[];
  /** The ordering constraints of this registry's registrations, for the cycle check of `add`. */
  readonly #constraints = new ConstraintIndex();
  readonly #contributionCache = new Map<string, { version: number; entries: readonly Contribution<unknown>[] }>();
  /** Stamped by every change. */
  #version = tick();
  /** Stamped by the changes that can change the chain of any stage: ids coming or going, instrumentations. */
  #structure = this.#version;
  /** The registration the last add stored (not a replacement), with the stamps before it and the clock after it. */
  #lastAdded: StoredRegistration | undefined = undefined;
  #versionBeforeAdd = 0;
  #structureBeforeAdd = 0;
  #addedAt = 0;

  /** The scope of a root registry, or of a child of the registry whose scope is `parent`. */
  constructor(readonly parent: RegistryScope | undefined) {
    this.chain = parent === undefined ? [this] : [...parent.chain, this];
  }

  /**
   * Stores a registration, in place of the one with its id when it replaces one.
   *
   * @throws MiddlewareError `ERR_DUPLICATE_ID` or `ERR_ORDER_CYCLE`; nothing changes then.
   */
  register(registration: StoredRegistration, where: string): Disposer {
    let stored = registration;
    const existing = registration.id === undefined ? this.#namedPeer(registration, where) : this.ids.get(registration.id);
    if (existing !== undefined) {
      if (!registration.replace) throw messages.duplicateId(errorSiteOf(registration), registration.id, where);
      stored = takePlace(registration, existing);
      // Replaced by name: the id others' constraints name now names the replacement.
      if (registration.id === undefined && existing.id !== undefined) stored = { ...stored, id: existing.id };
    } else {
      if (registration.id !== undefined && !registration.replace && this.parent !== undefined && this.parent.#hasId(registration.id))
        throw messages.duplicateId(errorSiteOf(registration), registration.id, where);
    }
    const versionBefore = this.#version;
    const structureBefore = this.#structure;
    // Reject a cycle before anything changes, so a failed add leaves no trace.
    if (this.#constraints.closesCycle(stored, existing, this.ids)) {
      // Sorting the whole phase names the cycle exactly as resolution would (MW-042). A cycle runs through peers of the
      // new registration on its stage, so the stage has its list.
      const peers = this.byStage.get(stored.stage) as StoredRegistration[];
      const samePhase = peers.filter((other) => other.phase === stored.phase && other !== existing);
      sortByConstraints([...samePhase, stored], { stage: stored.stage.name, phase: stored.phase });
    }
    if (existing !== undefined) this.unregister(existing);
    // Looked up after the replaced one is gone, since that may have emptied the stage's list and dropped it.
    const list = this.byStage.get(stored.stage);
    if (list === undefined) this.byStage.set(stored.stage, [stored]);
    else list.push(stored);
    this.#constraints.add(stored);
    if (stored.id !== undefined) this.ids.set(stored.id, stored);
    this.#changed(stored.id !== undefined);
    this.#lastAdded = existing === undefined ? stored : undefined;
    this.#versionBeforeAdd = versionBefore;
    this.#structureBeforeAdd = structureBefore;
    this.#addedAt = this.#version;
    return () => {
      this.unregister(stored);
    };
  }

  /**
   * The registration a replacement without an id takes the place of (MW-343): the one of its stage and phase in
   * this registry with its name; undefined for any other registration, or when none has that name.
   *
   * @throws MiddlewareError `ERR_AMBIGUOUS_NAME` when several have it.
   */
  #namedPeer(registration: StoredRegistration, where: string): StoredRegistration | undefined {
    if (!registration.replace) return undefined;
    const named = (this.byStage.get(registration.stage) ?? []).filter(
      (other) => other.phase === registration.phase && other.name === registration.name,
    );
    if (named.length > 1) throw messages.ambiguousName(errorSiteOf(registration), named.length, where);
    return named[0];
  }

  /** Removes the registration with `id`; false when there is none. */
  removeId(id: string): boolean {
    const registration = this.ids.get(id);
    if (registration === undefined) return false;
    this.unregister(registration);
    return true;
  }

  /** Removes the earliest registration of `handler` on `stage` in `phase`; false when there is none. */
  removeFirst(stage: AnyStage, phase: Phase, handler: unknown): boolean {
    const list = this.byStage.get(stage);
    if (list === undefined) return false;
    let first: StoredRegistration | undefined;
    for (const registration of list) {
      if (registration.phase === phase && registration.handler === handler)
        first = first === undefined ? registration : earlier(first, registration);
    }
    if (first === undefined) return false;
    this.unregister(first);
    return true;
  }

  /** Removes a registration; nothing when it is no longer stored (a disposer called again). */
  unregister(registration: StoredRegistration): void {
    const list = this.byStage.get(registration.stage);
    if (list === undefined || !removeFrom(list, registration)) return;
    if (list.length === 0) this.byStage.delete(registration.stage);
    this.#constraints.remove(registration);
    // A stored registration with an id is always the one its id maps to: replacing unregisters the old one first.
    if (registration.id !== undefined) this.ids.delete(registration.id);
    // Removing what the last add stored, before anything else changed anywhere (no stamp since), puts every registry
    // back exactly as it was before that add, so the stamps go back too and the chains cached then hold at once
    // (`churn_k5_1ev`: a handler added and removed around an invoke). Any other change in between, here or in a
    // parent or child, has moved the clock past the add's stamp, and the removal is stamped as a change.
    if (registration === this.#lastAdded && this.#addedAt === lastTick()) {
      this.#version = this.#versionBeforeAdd;
      this.#structure = this.#structureBeforeAdd;
    } else this.#changed(registration.id !== undefined);
    this.#lastAdded = undefined;
  }

  /**
   * Adds an instrumentation.
   *
   * @throws MiddlewareError `ERR_INVALID_HANDLER` when `instrumentation` has no `invoke` function.
   */
  instrument(instrumentation: Instrumentation): Disposer {
    if (!isObject(instrumentation) || typeof instrumentation.invoke !== 'function') {
      throw messages.notAnInstrumentation(instrumentation);
    }
    this.instrumentations.add(instrumentation);
    this.#changed(true);
    return () => {
      if (this.instrumentations.delete(instrumentation)) this.#changed(true);
    };
  }

  /**
   * What the setup of the bundle named `bundle` registers through: everything it adds goes to this scope, and
   * `kept` is given the disposer of each addition.
   */
  registrar(bundle: string, kept: (disposer: Disposer) => Disposer): Registrar {
    const where = `bundle "${bundle}"`;
    return {
      add: (target, handler, options) => kept(this.register(createRegistration(target, handler, options, bundle, where), where)),
      instrument: (instrumentation) => kept(this.instrument(instrumentation)),
      provide: (key, value) => kept(this.provide(createContribution(key, value, bundle))),
    };
  }

  /**
   * Stores a contribution.
   *
   * @throws MiddlewareError `ERR_DUPLICATE_ID` when this scope or an ancestor already has a value with its id.
   */
  provide(contribution: StoredContribution): Disposer {
    const { key, id } = contribution;
    const set = this.provided.get(key.name) ?? new Set<StoredContribution>();
    if (id !== undefined) {
      for (const existing of set) if (existing.id === id) throw duplicated(contribution, existing, false);
      const inherited = this.parent === undefined ? undefined : this.parent.#providedWithId(key.name, id);
      if (inherited !== undefined) throw duplicated(contribution, inherited, true);
    }
    set.add(contribution);
    this.provided.set(key.name, set);
    this.#version = tick();
    return () => {
      if (!set.delete(contribution)) return;
      if (set.size === 0) this.provided.delete(key.name);
      this.#version = tick();
    };
  }

  /**
   * The contributions in scope under the key named `name`, cached until this scope or an ancestor changes.
   *
   * @throws MiddlewareError `ERR_DUPLICATE_ID` (see `resolveContributions`).
   */
  contributions(name: string): readonly Contribution<unknown>[] {
    const version = this.effectiveVersion();
    const cached = this.#contributionCache.get(name);
    if (cached?.version === version) return cached.entries;
    const entries = resolveContributions(name, this.chain);
    this.#contributionCache.set(name, { version, entries });
    return entries;
  }

  /** The names of the keys in scope whose `stage` is `stage`, sorted, for `explain()`. */
  keysShownWith(stage: AnyStage): string[] {
    const names = new Set<string>();
    for (const scope of this.chain) {
      for (const [name, set] of scope.provided) for (const contribution of set) if (contribution.key.stage === stage) names.add(name);
    }
    return [...names].sort();
  }

  /** The newest change anywhere in this scope's ancestry; the clock only grows. */
  effectiveVersion(): number {
    return this.parent === undefined ? this.#version : Math.max(this.parent.effectiveVersion(), this.#version);
  }

  /** The newest structural change anywhere in this scope's ancestry. */
  effectiveStructure(): number {
    return this.parent === undefined ? this.#structure : Math.max(this.parent.effectiveStructure(), this.#structure);
  }

  #providedWithId(name: string, id: string): StoredContribution | undefined {
    const set = this.provided.get(name);
    if (set !== undefined) for (const existing of set) if (existing.id === id) return existing;
    return this.parent === undefined ? undefined : this.parent.#providedWithId(name, id);
  }

  #hasId(id: string): boolean {
    return this.ids.has(id) || (this.parent !== undefined && this.parent.#hasId(id));
  }

  /** Stamps a change; `structural` when it may change the chain of other stages than the registration's own. */
  #changed(structural: boolean): void {
    this.#version = tick();
    if (structural) this.#structure = this.#version;
  }
}

/**
 * Removes `registration` from `list`; false when it is not there. The last entry is looked at first (a handler
 * added and removed again), then the list is searched from the front (a bundle disposing of its handlers in the
 * order it added them), so both cost one comparison whatever the list's length.
 */
function removeFrom(list: StoredRegistration[], registration: StoredRegistration): boolean {
  if (list[list.length - 1] === registration) {
    list.pop();
    return true;
  }
  const index = list.indexOf(registration);
  if (index < 0) return false;
  list.splice(index, 1);
  return true;
}

/**
 * The earlier registered of two: a replacement sits later in its stage's list than its sequence number says, hence
 * the comparison rather than the list's order.
 */
function earlier(left: StoredRegistration, right: StoredRegistration): StoredRegistration {
  // No two registrations share a sequence number (a replaced one is gone), so `<` and `<=` agree.
  return right.seq < left.seq ? right : left;
}
