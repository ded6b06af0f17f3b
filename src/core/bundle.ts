/**
 * Middleware bundles: a named `setup` that registers any number of handlers
 * and instrumentations on any stages, and provides contributions, through a {@link Registrar}, added and
 * removed as one by `registry.use()`; and registrars built on other
 * registrars (the bundle's transaction, and the observing registrar of
 * `runStage`).
 *
 * @packageDocumentation
 */
import { notABundle } from './messages';
import type { Instrumentation } from './instrumentation';
import type { ContributionKey } from './contributions';
import type { AddOptions, Disposer, HandlerOf, Target } from './types';
import { isObject } from '../util/is-object';

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

/**
 * Runs a bundle's `setup` as one transaction. Everything it registers goes
 * through the registrar `registrarFor` returns for the bundle's name, which
 * hands the disposer of each addition to `kept` to be remembered, so the
 * returned disposer removes it all, latest first; a
 * `setup` that throws has what it registered removed again, and its error
 * passes through.
 *
 * @throws MiddlewareError `ERR_INVALID_HANDLER` when `middleware` is not `{ name, setup }`.
 */
export function useBundle(
  middleware: Middleware,
  registrarFor: (bundle: string, kept: (disposer: Disposer) => Disposer) => Registrar,
): Disposer {
  if (!isObject(middleware) || typeof middleware.name !== 'string' || typeof middleware.setup !== 'function') {
    throw notABundle(middleware);
  }
  const disposers: Disposer[] = [];
  const kept = (disposer: Disposer): Disposer => {
    disposers.push(disposer);
    return disposer;
  };
  const disposeAll = (): void => {
    for (let index = disposers.length - 1; index >= 0; index--) (disposers[index] as Disposer)();
  };
  try {
    middleware.setup(registrarFor(middleware.name, kept));
  } catch (error) {
    disposeAll();
    throw error;
  }
  return disposeAll;
}

/** What a {@link mapRegistrar} does to each handler: the handler and options to register in its place. */
export type HandlerMapping = (
  target: Target,
  handler: unknown,
  options: AddOptions | undefined,
) => readonly [unknown, AddOptions | undefined];

/** A registrar that registers, through `registrar`, what `mapping` makes of each handler; instrumentations and contributions pass unchanged. */
export function mapRegistrar(registrar: Registrar, mapping: HandlerMapping): Registrar {
  return {
    add: (target, handler, options) => {
      const [mapped, mappedOptions] = mapping(target, handler, options);
      return registrar.add(target, mapped as never, mappedOptions);
    },
    instrument: (instrumentation) => registrar.instrument(instrumentation),
    provide: (key, value) => registrar.provide(key, value),
  };
}
