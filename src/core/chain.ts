/**
 * Types of a resolved chain: the handlers of one stage in execution-nesting
 * order, as `describe()` reports them and as the invoke runs them.
 *
 * @packageDocumentation
 */
import type { Instrumentation } from './instrumentation';
import type { AnyStage, NextPolicy, Phase } from './types';

/** Where a handler in a chain came from. */
export type ChainSource =
  /** Added to the registry that was asked, with `add`. */
  | 'registry'
  /** Added by a bundle given to `use` (see `bundle`). */
  | 'bundle'
  /** Inherited from a parent registry (see `depth`). */
  | 'scope'
  /** Given to this invoke only, through `InvokeOptions.use`. */
  | 'invoke';

/** One handler of a resolved chain, as `describe()` returns it. */
export interface ChainEntry {
  /** The phase. */
  readonly phase: Phase;
  /** Position within its phase, 0 being the first Input / outermost Wrap or Output handler. */
  readonly position: number;
  /** The registered name. */
  readonly name: string;
  /** The registered id, if any. */
  readonly id: string | undefined;
  /** The registered order key. */
  readonly order: number;
  /** Ids this handler must run outside of. */
  readonly before: readonly string[];
  /** Ids this handler must run inside of. */
  readonly after: readonly string[];
  /** The `next()` policy (Wrap handlers). */
  readonly next: NextPolicy;
  /** Where it came from. */
  readonly source: ChainSource;
  /** The bundle's name when it came from a bundle. */
  readonly bundle: string | undefined;
  /** 0 for the registry asked, 1 for its parent, and so on; -1 for a per-invoke handler. */
  readonly depth: number;
}

/** A chain entry with its (type-erased) function, as the invoke runs it. */
export interface ResolvedEntry extends ChainEntry {
  /** The handler, type-erased in storage; the public methods restore its type. */
  readonly handler: (...args: never[]) => unknown;
}

/** Everything one invoke runs, fixed when the invoke starts. */
export interface ResolvedChain {
  /** The stage. */
  readonly stage: AnyStage;
  /** Input handlers in run order. */
  readonly input: readonly ResolvedEntry[];
  /** Wrap handlers, outermost first. */
  readonly wrap: readonly ResolvedEntry[];
  /** Output handlers, outermost first (so they transform in reverse order). */
  readonly output: readonly ResolvedEntry[];
  /** Instrumentations observing the invoke. */
  readonly instrumentations: readonly Instrumentation[];
}
