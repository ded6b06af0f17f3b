/**
 * Resolution: the chain of one stage for a registry, its ancestors and an
 * invoke's own handlers (SPEC MW-040 to MW-046), and the cache that keeps
 * each stage's chain while it holds. Levels nest (a parent registry's
 * handlers outside a child's, per-invoke handlers innermost); within a level
 * `order.ts` sorts; replacements, cross-level constraints and the warnings of
 * `warnings.ts` are decided here. The cache compares what a chain was
 * resolved from, so that a change which leaves a stage's registrations as
 * they were (a handler added and removed again, a change to another stage)
 * resolves nothing again. The types of a resolved chain are in `chain.ts`.
 *
 * @packageDocumentation
 */
import type { ChainSource, ResolvedChain, ResolvedEntry } from './chain';
import type { Instrumentation } from './instrumentation';
import { perInvokeRegistrations } from './invoke-options';
import { duplicateId, orderConflict } from './messages';
import { sortByConstraints } from './order';
import { errorSiteOf, takePlace, type StoredRegistration } from './registration';
import type { RegistryScope, Scope } from './scope';
import type { AnyStage, Phase, Registration } from './types';
import { duplicateHandler, unknownId, type MiddlewareWarning } from './warnings';

/** One scope level of a chain: a registry (root first) or the per-invoke handlers. */
interface Level {
  /** 0 for the registry asked, 1 for its parent and so on; -1 for per-invoke handlers. */
  readonly depth: number;
  /** This level's registrations on the stage being resolved. */
  readonly registrations: readonly StoredRegistration[];
  /** Every registration with an id at this level, on any stage. */
  readonly ids: ReadonlyMap<string, StoredRegistration>;
}

/**
 * Resolves the chain of one stage for a registry and its ancestors (`scopes`,
 * root first) and an invoke's own registrations: one level per registry, and
 * the per-invoke handlers as the deepest level.
 *
 * @throws MiddlewareError `ERR_DUPLICATE_ID` for an id given twice in the per-invoke registrations;
 *   the codes of {@link resolveChain}.
 */
export function resolveScopes(
  stage: AnyStage,
  scopes: readonly Scope[],
  perInvoke: readonly StoredRegistration[],
  onWarning: (warning: MiddlewareWarning) => void,
): ResolvedChain {
  const levels: Level[] = scopes.map((scope, index) => ({
    depth: scopes.length - 1 - index,
    // The list itself, not a copy: resolution reads it before any code of the caller's (a warning) can run.
    registrations: scope.byStage.get(stage) ?? [],
    ids: scope.ids,
  }));
  const instrumentations = scopes.flatMap((scope) => [...scope.instrumentations]);
  // Without per-invoke handlers this level is empty and changes nothing.
  const ids = new Map<string, StoredRegistration>();
  for (const registration of perInvoke) {
    if (registration.id === undefined) continue;
    if (ids.has(registration.id)) throw duplicateId(errorSiteOf(registration), registration.id, 'invoke options.use', true);
    ids.set(registration.id, registration);
  }
  levels.push({ depth: -1, registrations: perInvoke, ids });
  return resolveChain(stage, levels, instrumentations, onWarning);
}

/**
 * Resolves the chain of one stage from its scope levels (SPEC MW-040 to MW-046).
 *
 * Levels nest: every handler of a shallower level (a parent registry) sits
 * outside every handler of a deeper one (a child, then per-invoke handlers).
 * Within a level: constraints, then `order`, then registration order.
 * A registration added with `replace: true` hides the same id at shallower
 * levels and, on the same stage and phase, takes the hidden one's place.
 *
 * @throws MiddlewareError `ERR_ORDER_CYCLE`, `ERR_ORDER_CONFLICT` or `ERR_DUPLICATE_ID`.
 */
function resolveChain(
  stage: AnyStage,
  levels: readonly Level[],
  instrumentations: readonly Instrumentation[],
  onWarning: (warning: MiddlewareWarning) => void,
): ResolvedChain {
  const phases: readonly Phase[] = ['input', 'wrap', 'output'];
  const { winners, shallowest } = replacements(levels);
  // The level index of every registration of this stage, looked up instead of searched.
  const levelOf = new Map<StoredRegistration, number>();
  levels.forEach((level, index) => {
    for (const registration of level.registrations) levelOf.set(registration, index);
  });
  // placed[level][phase]: what sits at each level, in registration order, before sorting.
  const placed = levels.map(() => ({
    input: [] as StoredRegistration[],
    wrap: [] as StoredRegistration[],
    output: [] as StoredRegistration[],
  }));
  const place = (registration: StoredRegistration, level: number): void => {
    (placed[level] as Record<Phase, StoredRegistration[]>)[registration.phase].push(registration);
  };
  // A replacement sits at the level of the registration it hides but is reported with its own origin.
  const origin = new Map<StoredRegistration, number>();
  levels.forEach((level, index) => {
    for (const registration of level.registrations) {
      const id = registration.id;
      const winner = id === undefined ? undefined : winners.get(id);
      if (winner === undefined) {
        place(registration, index);
        continue;
      }
      if (registration !== shallowest.get(id as string)) continue;
      if (winner.stage === registration.stage && winner.phase === registration.phase) {
        // The winner is deeper than the registration it hides (the shallowest one), never the same.
        const taken = takePlace(winner, registration);
        origin.set(taken, (levels[levelOf.get(winner) as number] as Level).depth);
        place(taken, index);
      }
    }
    // A winner on this stage (`levelOf` holds only those) whose hidden registration is elsewhere stays at its own level.
    for (const winner of winners.values()) {
      const hidden = shallowest.get(winner.id as string) as StoredRegistration;
      const sameSlot = hidden.stage === winner.stage && hidden.phase === winner.phase;
      if (!sameSlot && levelOf.get(winner) === index) place(winner, index);
    }
  });

  const chain = { stage, input: [] as ResolvedEntry[], wrap: [] as ResolvedEntry[], output: [] as ResolvedEntry[], instrumentations };
  const levelOfId = new Map<string, { level: number; registration: StoredRegistration }>();
  placed.forEach((byPhase, level) => {
    for (const phase of phases)
      for (const registration of byPhase[phase]) if (registration.id !== undefined) levelOfId.set(registration.id, { level, registration });
  });
  for (const phase of phases) {
    const target = chain[phase];
    levels.forEach((level, index) => {
      for (const registration of sortByConstraints((placed[index] as Record<Phase, StoredRegistration[]>)[phase], {
        stage: stage.name,
        phase,
      })) {
        checkConstraints(registration, index, levels, levelOfId, onWarning);
        target.push(toEntry(registration, origin.get(registration) ?? level.depth, target.length));
      }
    });
    warnOfDuplicates(stage.name, target, onWarning);
  }
  // The chain is cached and shared by every invoke until the registry changes. Its entries and the chain
  // itself are frozen; its arrays are not (frozen arrays slow every invoke that walks them by about 10%),
  // and nothing public hands them out: describe() copies them, the invoke keeps them in private fields.
  return Object.freeze({ stage, input: chain.input, wrap: chain.wrap, output: chain.output, instrumentations: [...instrumentations] });
}

/** For each replaced id: the deepest replacing registration, and the shallowest one it hides. */
function replacements(levels: readonly Level[]) {
  const winners = new Map<string, StoredRegistration>();
  const shallowest = new Map<string, StoredRegistration>();
  const seenAt = new Map<string, number>();
  levels.forEach((level, index) => {
    for (const [id, registration] of level.ids) {
      const previous = seenAt.get(id);
      if (previous === undefined) {
        seenAt.set(id, index);
        shallowest.set(id, registration);
        continue;
      }
      if (!registration.replace) throw duplicateId(errorSiteOf(registration), registration.id, 'Resolving a scoped registry');
      winners.set(id, registration);
    }
  });
  return { winners, shallowest };
}

function checkConstraints(
  registration: StoredRegistration,
  level: number,
  levels: readonly Level[],
  levelOfId: ReadonlyMap<string, { level: number; registration: StoredRegistration }>,
  onWarning: (warning: MiddlewareWarning) => void,
): void {
  const check = (id: string, outside: boolean): void => {
    const found = levelOfId.get(id) ?? findAnywhere(levels, id);
    if (found === undefined) {
      onWarning(unknownId(errorSiteOf(registration), id, outside));
      return;
    }
    const other = found.registration;
    if (other.stage !== registration.stage || other.phase !== registration.phase) return;
    // Within a level the sort made it hold; across levels the nesting decides: a shallower level is always outside.
    // So `before` fails only against an outer level, `after` only against an inner one.
    const outer = found.level < level;
    if (outside ? outer : found.level > level) throw orderConflict(errorSiteOf(registration), id, outside, outer);
  };
  for (const id of registration.before) check(id, true);
  for (const id of registration.after) check(id, false);
}

/** The registration an id names in this chain: the deepest level's, since a deeper one with the id replaces the others. */
function findAnywhere(levels: readonly Level[], id: string): { level: number; registration: StoredRegistration } | undefined {
  for (let index = levels.length - 1; index >= 0; index--) {
    const registration = (levels[index] as Level).ids.get(id);
    if (registration !== undefined) return { level: index, registration };
  }
  return undefined;
}

/**
 * Warns of each handler function that a phase's chain runs twice, registered neither time with an id: a `retry()`
 * registered twice retries its own retries, which is rarely meant (MW-057). One warning per later place.
 */
function warnOfDuplicates(stage: string, entries: readonly ResolvedEntry[], onWarning: (warning: MiddlewareWarning) => void): void {
  const first = new Map<unknown, ResolvedEntry>();
  for (const entry of entries) {
    if (entry.id !== undefined) continue;
    const earlier = first.get(entry.handler);
    if (earlier === undefined) first.set(entry.handler, entry);
    else onWarning(duplicateHandler(stage, earlier, entry));
  }
}

function toEntry(registration: StoredRegistration, depth: number, position: number): ResolvedEntry {
  let source: ChainSource = 'invoke';
  if (depth > 0) source = 'scope';
  else if (depth === 0) source = registration.bundle === undefined ? 'registry' : 'bundle';
  return Object.freeze({
    phase: registration.phase,
    position,
    name: registration.name,
    id: registration.id,
    order: registration.order,
    before: registration.before,
    after: registration.after,
    next: registration.next,
    source,
    bundle: registration.bundle,
    depth,
    handler: registration.handler,
  });
}

// The chain cache.

/** A resolved chain with what it was resolved from. */
export interface CachedChain {
  /** The registries' effective version it was last found valid at. */
  version: number;
  /** The registries' effective structural version it was resolved at. */
  readonly structure: number;
  /** The registrations on the stage at each level, root first, when it was resolved. */
  readonly sources: readonly (readonly StoredRegistration[])[];
  /** The chain. */
  readonly chain: ResolvedChain;
}

/** The registrations on `stage` at each level of `scopes` (root first), as the cache keeps them. */
export function sourcesOf(scopes: readonly Scope[], stage: AnyStage): StoredRegistration[][] {
  return scopes.map((scope) => scope.byStage.get(stage)?.slice() ?? []);
}

/** Whether every level of `scopes` still has exactly the registrations on `stage` that `sources` recorded, in the same order. */
export function holdsSameRegistrations(
  scopes: readonly Scope[],
  stage: AnyStage,
  sources: readonly (readonly StoredRegistration[])[],
): boolean {
  for (let level = 0; level < scopes.length; level++) {
    const expected = sources[level] as readonly StoredRegistration[];
    const current = (scopes[level] as Scope).byStage.get(stage);
    if ((current === undefined ? 0 : current.length) !== expected.length) return false;
    if (current === undefined) continue;
    for (let index = 0; index < current.length; index++) if (current[index] !== expected[index]) return false;
  }
  return true;
}

/** The chains of one registry's stages, each resolved once and kept while it holds. */
export class ChainCache {
  readonly #cache = new WeakMap<AnyStage, CachedChain>();

  readonly #onWarning: (warning: MiddlewareWarning) => void;

  constructor(onWarning: (warning: MiddlewareWarning) => void) {
    this.#onWarning = onWarning;
  }

  /**
   * The cache's entry for `value`, looked up before anyone has checked that `value` is a stage. Only a genuine
   * stage is ever cached (every caller of {@link ChainCache.resolve} checks it first), so an entry proves `value` is
   * one: an invoke of a stage it ran before then makes one lookup where the brand record's and this one would make
   * two.
   */
  entryOf(value: unknown): CachedChain | undefined {
    return this.#cache.get(value as AnyStage);
  }

  /**
   * The chain of a stage, cached until the registry or an ancestor changes (a chain with per-invoke handlers is
   * not cached). After a change that was not structural, the cached chain still holds when every level has
   * exactly the registrations on the stage it was resolved from. `entry` is what {@link ChainCache.entryOf} found
   * for the stage.
   */
  resolve(scope: RegistryScope, stage: AnyStage, use: readonly Registration[] | undefined, entry: CachedChain | undefined): ResolvedChain {
    const perInvoke = use === undefined || use.length === 0 ? undefined : perInvokeRegistrations(stage, use);
    const version = scope.effectiveVersion();
    const cached = perInvoke === undefined ? entry : undefined;
    if (cached !== undefined) {
      if (cached.version === version) return cached.chain;
      if (cached.structure === scope.effectiveStructure() && holdsSameRegistrations(scope.chain, stage, cached.sources)) {
        cached.version = version;
        return cached.chain;
      }
    }
    const scopes = scope.chain;
    const chain = resolveScopes(stage, scopes, perInvoke ?? [], this.#onWarning);
    if (perInvoke === undefined)
      this.#cache.set(stage, { version, structure: scope.effectiveStructure(), sources: sourcesOf(scopes, stage), chain });
    return chain;
  }
}
