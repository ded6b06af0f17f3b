/**
 * What a registry caches per stage: the resolved chain with what it was
 * resolved from, so that a change which leaves a stage's registrations as
 * they were (a handler added and removed again, a change to another stage)
 * resolves nothing again. Resolution reads a stage's registrations at each
 * level, the ids of every level and the instrumentations (`resolve.ts`); the
 * registry stamps changes to the last two as structural, and this file
 * compares the first.
 *
 * @packageDocumentation
 */
import type { ResolvedChain } from './chain';
import type { StoredRegistration } from './registration';
import type { Scope } from './resolve';
import type { AnyStage } from '../stage/types';

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
  return scopes.map((scope) => [...(scope.byStage.get(stage) ?? [])]);
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
    if ((current === undefined ? 0 : current.size) !== expected.length) return false;
    if (current === undefined) continue;
    let index = 0;
    for (const registration of current) if (registration !== expected[index++]) return false;
  }
  return true;
}
