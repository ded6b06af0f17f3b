/**
 * Types of middleware bundles: a named `setup` that registers any number of
 * handlers on any stages through a {@link Registrar}, added and removed as one
 * by `registry.use()`.
 *
 * @packageDocumentation
 */
import type { ContributionKey } from './contribution';
import type { Instrumentation } from './instrumentation';
import type { AddOptions, Disposer, HandlerOf, Target } from './types';

/** What a bundle's `setup` registers through: the same `add` as the registry's. */
export interface Registrar {
  /** Registers a handler as part of the bundle; see `MiddlewareRegistry.add`. */
  add<TTarget extends Target>(target: TTarget, handler: HandlerOf<TTarget>, options?: AddOptions): Disposer;
  /** Registers an instrumentation as part of the bundle. */
  instrument(instrumentation: Instrumentation): Disposer;
  /**
   * Provides a value under a contribution key (a tool, say), as part of the
   * bundle; `registry.contributions(key)` lists it in this registry's scope.
   */
  provide<TValue>(key: ContributionKey<TValue>, value: TValue): Disposer;
}

/** A middleware bundle: any number of handlers on any stages, added and removed as one. */
export interface Middleware {
  /** Name shown in `describe()` for every handler the bundle registers. */
  readonly name: string;
  /** Registers the bundle's handlers. */
  setup(registrar: Registrar): void;
}
