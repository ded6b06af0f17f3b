/**
 * Types of instrumentation: observers that see every layer of every invoke
 * (tracing, logging, timelines) without being a layer of the onion themselves.
 *
 * Why not a Wrap handler: a Wrap handler sees only the layers inside it as one
 * opaque `next()`; tracing needs a span per layer, with each layer's own time.
 *
 * @packageDocumentation
 */
import type { AnyStage, Phase } from './types';

/** What an instrumentation learns when an invoke starts. */
export interface InvokeInfo {
  /** The stage being invoked. */
  readonly stage: AnyStage;
  /** The context the caller passed (before the Input phase). */
  readonly context: unknown;
  /** The caller's signal, if any. */
  readonly signal: AbortSignal | undefined;
}

/** One entry into a Wrap layer or the terminal. */
export interface LayerInfo {
  /** The stage being invoked. */
  readonly stage: AnyStage;
  /** A Wrap handler or the terminal. */
  readonly kind: 'wrap' | 'terminal';
  /** The handler's registered name (`'terminal'` for the terminal). */
  readonly handler: string;
  /** The handler's id, if it has one. */
  readonly id: string | undefined;
  /** The handler's order key (0 for the terminal). */
  readonly order: number;
  /** Position in the onion: 0 is the outermost Wrap handler; the terminal's is the number of Wrap handlers. */
  readonly position: number;
  /** 1 for the first entry into this position during the invoke, 2 for the next (a retry), and so on. */
  readonly attempt: number;
  /** The context this entry received. */
  readonly context: unknown;
  /** The entry whose `next()` created this one (exact even when a handler runs inner chains concurrently); undefined for the outermost. */
  readonly parent: LayerInfo | undefined;
}

/** One Input or Output handler call. */
export interface HandlerInfo {
  /** The stage being invoked. */
  readonly stage: AnyStage;
  /** `'input'` or `'output'`. */
  readonly phase: Exclude<Phase, 'wrap'>;
  /** The handler's registered name. */
  readonly handler: string;
  /** Position within its phase (0 first). */
  readonly position: number;
  /** The handler's order key. */
  readonly order: number;
}

/** How an invoke ended. */
export type InvokeOutcome =
  | { readonly status: 'success'; readonly result: unknown }
  | { readonly status: 'error'; readonly error: unknown }
  | { readonly status: 'closed' };

/** Receives the events of one invoke. Every method is optional. */
export interface InvokeObserver {
  /**
   * Wraps the events of one layer entry. It must forward every event of
   * `events` unchanged and forward `return()` / errors (an `async function*`
   * with `yield* events` inside `try` does this).
   */
  layer?(info: LayerInfo, events: AsyncGenerator<unknown, void, undefined>): AsyncGenerator<unknown, void, undefined>;
  /** An Input or Output handler is about to run. */
  handlerStart?(info: HandlerInfo): void;
  /** An Input or Output handler returned (`error` set when it threw or broke its contract). */
  handlerEnd?(info: HandlerInfo, error?: unknown): void;
  /** The invoke settled. */
  end?(outcome: InvokeOutcome): void;
}

/**
 * Observes invokes. Registered with `registry.instrument()` or a bundle's
 * `registrar.instrument()`; costs nothing on stages it returns no observer for.
 */
export interface Instrumentation {
  /** Name shown by `describe()` users and in errors. */
  readonly name: string;
  /** Called once per invoke when it starts; return an observer, or undefined to skip it. */
  invoke(info: InvokeInfo): InvokeObserver | undefined;
}
