/**
 * Keyed contributions: values a bundle provides besides its handlers (the
 * tools of the agent kit, say), resolved across scopes as handlers are
 * (MW-053 – MW-056). The core knows nothing of what a key's values are: a
 * subsystem creates the key, bundles provide values under it, and whoever
 * runs the stage reads what is in scope with `registry.contributions(key)`.
 * The values in scope are stored by each registry's scope (`scope.ts`),
 * assembled here and shown by `explain.ts`.
 *
 * @packageDocumentation
 */
import { duplicateContribution, invalidContributionId, invalidContributionKey, notAContributionKey } from './messages';
import type { MiddlewareError } from './errors';
import { isStage } from './stage';
import type { AnyStage } from './types';
import { describeValue } from '../util/describe-value';
import { isObject } from '../util/is-object';

/** Phantom carrier of a key's value type; never present at run time. */
declare const contributionType: unique symbol;

/**
 * Names one kind of contribution. Keys are matched by `name`, so two keys
 * with one name (made by two copies of a library, say) are the same key.
 */
export interface ContributionKey<TValue> {
  /** The key's name, unique in the realm: namespace it (`'my-lib.tools'`). */
  readonly name: string;
  /** Gives a value's id, unique among the values of this key in one chain of scopes; none: values have no id. */
  readonly identify: ((value: TValue) => string) | undefined;
  /** The stage whose `explain()` lists this key's values, if any. */
  readonly stage: AnyStage | undefined;
  /** Invariant phantom of the value type; never present at run time. */
  readonly [contributionType]?: (value: TValue) => TValue;
}

/** Options of {@link createContributionKey}. */
export interface ContributionKeyOptions<TValue> {
  /** Gives a value's id (a non-empty string); two values with one id in one chain of scopes are an error. */
  readonly identify?: (value: TValue) => string;
  /** The stage whose `explain()` lists the key's values. */
  readonly stage?: AnyStage;
}

/** One contribution in scope, as `registry.contributions(key)` returns it (frozen). */
export interface Contribution<TValue> {
  /** The key's name. */
  readonly key: string;
  /** The value's id, or `undefined` when the key has no `identify`. */
  readonly id: string | undefined;
  /** The value, as the bundle provided it. */
  readonly value: TValue;
  /** Position among the key's contributions in scope, from 0. */
  readonly position: number;
  /** `'bundle'` when provided to the registry asked, `'scope'` when inherited from an ancestor. */
  readonly source: 'bundle' | 'scope';
  /** The bundle that provided it. */
  readonly bundle: string;
  /** 0 for the registry asked, 1 for its parent, and so on. */
  readonly depth: number;
}

/** What the resolution of contributions reads of one registry's scope. */
export interface ProvidingScope {
  /** The values bundles provided to it, by key name, each key's in the order they were provided. */
  readonly provided: ReadonlyMap<string, ReadonlySet<StoredContribution>>;
}

/** One stored contribution, with what resolution needs. */
export interface StoredContribution {
  /** The key it was provided under. */
  readonly key: ContributionKey<unknown>;
  /** Its id, when the key has `identify`. */
  readonly id: string | undefined;
  /** The value. */
  readonly value: unknown;
  /** The bundle that provided it. */
  readonly bundle: string;
}

/**
 * Creates a contribution key.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`phase: 'register'`) for a name that is not a non-empty string,
 *   options that are not an object, an `identify` that is not a function or a `stage` that is not a stage.
 * @example
 * ```ts
 * interface Plugin { readonly name: string; run(): void }
 * const Plugins = createContributionKey<Plugin>('my-framework.plugins', { identify: (plugin) => plugin.name, stage: ModelStage });
 * registry.use({ name: 'audit', setup: (registrar) => void registrar.provide(Plugins, { name: 'audit', run() {} }) });
 * const plugins = registry.contributions(Plugins).map((contribution) => contribution.value);
 * ```
 */
export function createContributionKey<TValue>(name: string, options?: ContributionKeyOptions<TValue>): ContributionKey<TValue> {
  if (typeof name !== 'string' || name.length === 0)
    throw invalidContributionKey(`the name must be a non-empty string, got ${describeValue(name)}`);
  if (options !== undefined && !isObject(options))
    throw invalidContributionKey(`options must be { identify?, stage? }, got ${describeValue(options)}`);
  const identify = options?.identify;
  const stage = options?.stage;
  if (identify !== undefined && typeof identify !== 'function')
    throw invalidContributionKey(`options.identify must be a function (value) => id, got ${describeValue(identify)}`);
  if (stage !== undefined && !isStage(stage))
    throw invalidContributionKey(`options.stage must be a stage from createStage(), got ${describeValue(stage)}`);
  return Object.freeze({ name, identify, stage });
}

/** True for an object of a key's shape (from any copy of the library). */
function isContributionKey(value: unknown): value is ContributionKey<unknown> {
  if (!isObject(value)) return false;
  const key = value as Partial<ContributionKey<unknown>>;
  return typeof key.name === 'string' && key.name.length > 0 && (key.identify === undefined || typeof key.identify === 'function');
}

/**
 * Checks a key given to `provide` or `contributions`.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when it is not a key.
 */
export function checkKey(key: unknown, where: string): ContributionKey<unknown> {
  if (isContributionKey(key)) return key;
  throw notAContributionKey(where, key);
}

/**
 * A contribution of `bundle`, with its id.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for a key that is not one, or an id that is not a non-empty string;
 *   what `identify` throws passes through unchanged.
 */
export function createContribution(key: unknown, value: unknown, bundle: string): StoredContribution {
  const where = `bundle "${bundle}": registrar.provide(key, value)`;
  const checked = checkKey(key, where);
  const id = checked.identify === undefined ? undefined : (checked.identify(value) as unknown);
  if (checked.identify !== undefined && (typeof id !== 'string' || id.length === 0))
    throw invalidContributionId(where, { name: checked.name, stage: checked.stage?.name }, id, value);
  return Object.freeze({ key: checked, id: id as string | undefined, value, bundle });
}

/**
 * The error of a value provided twice under one id in one chain of scopes.
 *
 * @param inAncestor - Whether `existing` is in an ancestor of the registry `later` was provided to.
 */
export function duplicated(later: StoredContribution, existing: StoredContribution, inAncestor: boolean): MiddlewareError {
  return duplicateContribution(
    { name: later.key.name, stage: later.key.stage?.name },
    // Only values with an id collide.
    later.id as string,
    later.bundle,
    existing.bundle,
    inAncestor,
  );
}

/**
 * The contributions of one key in scope (MW-055) for a registry and its
 * ancestors (`scopes`, root first): the root's first, each registry's in the
 * order they were provided, each with its depth (0 for the registry asked).
 *
 * @throws MiddlewareError `ERR_DUPLICATE_ID` when two registries provide one id (an ancestor provided it after the child).
 */
export function resolveContributions(name: string, scopes: readonly ProvidingScope[]): readonly Contribution<unknown>[] {
  const seen = new Map<string, StoredContribution>();
  const entries: Contribution<unknown>[] = [];
  scopes.forEach((scope, index) => {
    const depth = scopes.length - 1 - index;
    for (const stored of scope.provided.get(name) ?? []) {
      if (stored.id !== undefined) {
        const existing = seen.get(stored.id);
        if (existing !== undefined) throw duplicated(stored, existing, true);
        seen.set(stored.id, stored);
      }
      entries.push(
        Object.freeze({
          key: name,
          id: stored.id,
          value: stored.value,
          position: entries.length,
          source: depth === 0 ? 'bundle' : 'scope',
          bundle: stored.bundle,
          depth,
        }),
      );
    }
  });
  return Object.freeze(entries);
}
