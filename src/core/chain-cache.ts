/**
 * What a registry caches per stage: the resolved chain with what it was
 * resolved from, so that a change which leaves a stage's registrations as
 * they were (a handler added and removed again, a change to another stage)
 * resolves nothing again. Resolution reads a stage's registrations at each
 * level, the ids of every level and the instrumentations (`resolve.ts`); the
 * registry's scope stamps changes to the last two as structural (`scope.ts`),
 * and this file compares the first.
 *
 * @packageDocumentation
 */
import type { ResolvedChain } from './chain';
import type { StoredRegistration } from './registration';
import { resolveScopes, type Scope } from './resolve';
import type { MiddlewareWarning } from './warnings';
import type { RegistryScope } from './scope';
import { perInvokeRegistrations } from './invoke-options';
import type { AnyStage, Registration } from './types';

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
    // Stryker disable next-line EqualityOperator: one index past the end reads undefined from both lists
    for (let index = 0; index < current.length; index++) if (current[index] !== expected[index]) return false;
  }
  return true;
}

/** The chains of one registry's stages, each resolved once and kept while it holds. */
export class ChainCache {
  private readonly cache = new WeakMap<AnyStage, CachedChain>();

  constructor(private readonly onWarning: (warning: MiddlewareWarning) => void) {}

  /**
   * The chain of a stage, cached until the registry or an ancestor changes (a chain with per-invoke handlers is
   * not cached). After a change that was not structural, the cached chain still holds when every level has
   * exactly the registrations on the stage it was resolved from.
   */
  resolve(scope: RegistryScope, stage: AnyStage, use: readonly Registration[] | undefined): ResolvedChain {
    const perInvoke = use === undefined || use.length === 0 ? undefined : perInvokeRegistrations(stage, use);
    const version = scope.effectiveVersion();
    const cached = perInvoke === undefined ? this.cache.get(stage) : undefined;
    if (cached !== undefined) {
      // Stryker disable next-line ConditionalExpression: a shortcut; nothing changed, so the check below holds and returns the same chain
      if (cached.version === version) return cached.chain;
      if (cached.structure === scope.effectiveStructure() && holdsSameRegistrations(scope.chain, stage, cached.sources)) {
        cached.version = version;
        return cached.chain;
      }
    }
    const scopes = scope.chain;
    const chain = resolveScopes(stage, scopes, perInvoke ?? [], this.onWarning);
    if (perInvoke === undefined)
      this.cache.set(stage, { version, structure: scope.effectiveStructure(), sources: sourcesOf(scopes, stage), chain });
    return chain;
  }
}
