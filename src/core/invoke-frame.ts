/**
 * One invoke as the modules that run it once per invoke see it: what it was
 * created with, and what it starts while it runs (its observers, its state
 * isolation, the inner chains handlers start). `Invocation`
 * (`invocation.ts`) is the one implementation; the onion (`compose.ts`), the
 * phases (`phases.ts`) and closing (`closing.ts`) work on it through this
 * interface, so that none of them imports the iterator that calls them.
 *
 * The resolved chain is not part of it: it is shared by every invoke of the
 * same registry version and its lists are not frozen, so `Invocation` keeps
 * it in a private field of the language, out of reach of the generator users
 * get (MW-037), and hands the functions that walk it the chain as an argument.
 *
 * Types only.
 *
 * @packageDocumentation
 */
import type { ErrorSite } from './errors';
import type { HeldChains } from './fast-path';
import type { StateBinding, Terminal } from './types';
import type { InvokeObservation } from './observation';
import type { Link } from './signals';
import type { StateIsolation } from './state';
import type { AnyStage } from './types';

/**
 * A value a phase produced asynchronously, in a box: a promise resolved with the value itself would adopt a
 * context or result that is a thenable, where the invoke must hand it on as it is (MW-039).
 */
export interface Later {
  /** The value. */
  readonly value: unknown;
}

/** Everything of one invoke but its iteration and its chain. */
export interface InvokeFrame extends HeldChains {
  /** The stage being invoked (frozen, MW-001). */
  readonly stage: AnyStage;
  /** The stage's name, for errors. */
  readonly stageName: string;
  /** The context the caller passed. */
  readonly context: unknown;
  /** The caller's terminal. */
  readonly terminal: Terminal<unknown, unknown>;
  /** The invoke's state binding, if any. */
  readonly binding: StateBinding<unknown> | undefined;
  /** The invoke's own signal, if any. */
  readonly signal: AbortSignal | undefined;
  /** Set only when an instrumentation observes this invoke, so unobserved invokes skip all reporting. */
  observation: InvokeObservation | undefined;
  /** Set (after the Input phase) only when the invoke has a state binding. */
  state: StateIsolation<unknown> | undefined;
  /** Set once the chain has completed or the invoke has settled: `next()` may no longer be called (MW-017). */
  settled: boolean;
  /** Links of the narrowed signals of the first inner chains, released when the invoke settles. */
  links: Link[] | undefined;
  /** The boxed value of a phase that went on asynchronously, while its `LATER` is on its way to the caller (`phases.ts`). */
  later: Promise<Later> | undefined;
  /** Fails with `ERR_ABORTED` when the invoke's own signal has aborted (one of the check points of MW-023). */
  throwIfAborted(): void;
  /** Who an error about a handler of this invoke names. */
  culprit(phase: ErrorSite['phase'], handler: string): ErrorSite;
}
