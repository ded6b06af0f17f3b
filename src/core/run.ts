/**
 * The once-per-invoke side of one invoke: what it was created with, and what
 * it starts while it runs (its observers, its state isolation, the inner
 * chains handlers start). The invoke's iterator reaches it only to start the
 * invoke and to end it (`invocation-lifecycle.ts`); the onion (`compose.ts`),
 * the phases (`phases.ts`) and closing (`closing.ts`) work on it.
 *
 * @packageDocumentation
 */
import * as messages from './messages';
import type { ErrorSite, MiddlewareError } from './errors';
import type { ResolvedChain } from './chain';
import type { StateBinding, Terminal } from './types';
import type { LayerGenerator } from './layer';
import type { InvokeObservation } from './observation';
import type { ChainOwner, ReleasingChain } from './releasing-chain';
import type { Later } from './phases';
import type { Link } from './signals';
import type { StateIsolation } from './state';

/** Everything of one invoke but the per-event iteration. */
export class InvokeRun {
  /** The stage's name, for errors. */
  readonly stageName: string;
  /** Set only when an instrumentation observes this invoke, so unobserved invokes skip all reporting. */
  observation: InvokeObservation | undefined = undefined;
  /** Set (after the Input phase) only when the invoke has a state binding. */
  state: StateIsolation<unknown> | undefined = undefined;
  /** Set once the chain has completed or the invoke has settled: `next()` may no longer be called (MW-017). */
  settled = false;
  /** The first inner chains `next()` started, held until the invoke settles (`closing.ts`). */
  started: LayerGenerator[] = [];
  /** Later inner chains that have not ended yet; each removes itself when it ends. */
  open: Set<ReleasingChain> | undefined = undefined;
  /** What the later inner chains report their end to (created with the first of them). */
  owner: ChainOwner | undefined = undefined;
  /** Links of the narrowed signals of the first inner chains, released when the invoke settles. */
  links: Link[] | undefined = undefined;
  /** The boxed value of a phase that went on asynchronously, while its `LATER` is on its way to the caller (`phases.ts`). */
  later: Promise<Later> | undefined = undefined;

  /**
   * @param chain - The resolved chain, shared by every invoke of the same registry version: never handed out (MW-037).
   * @param binding - The invoke's state binding, if any.
   * @param signal - The invoke's own signal, if any.
   */
  constructor(
    readonly chain: ResolvedChain,
    readonly context: unknown,
    readonly terminal: Terminal<unknown, unknown>,
    readonly binding: StateBinding<unknown> | undefined,
    readonly signal: AbortSignal | undefined,
  ) {
    this.stageName = chain.stage.name;
  }

  /** Fails with `ERR_ABORTED` when the invoke's own signal has aborted (one of the check points of MW-023). */
  throwIfAborted(): void {
    const signal = this.signal;
    if (signal?.aborted === true) throw messages.aborted(this.stageName, signal.reason);
  }

  /** Who an error about a handler of this invoke names. */
  culprit(phase: ErrorSite['phase'], handler: string): ErrorSite {
    return { stage: this.stageName, phase, handler };
  }

  /** `ERR_NO_RESULT`, naming the outermost layer, where the missing result surfaced; `last` is the last event, when one came. */
  noResult(last: { readonly present: boolean; readonly value?: unknown }): MiddlewareError {
    return messages.noResult(this.stageName, last, this.chain.wrap[0]?.name);
  }
}
