/**
 * Pure types of handlers: the handler of each phase, what it learns about
 * the invoke it runs in, `next()`, and the options of registering one (`add`,
 * `registrar.add`, per-invoke registrations). No runtime code lives here.
 *
 * @packageDocumentation
 */
import type { MiddlewareResult } from './result';
import type { AnyStage, MiddlewareStage, NextPolicy, PhaseToken, Target } from './types';

/**
 * What a handler learns about the call it runs in: the stage, its own
 * registered name, and the signal to stop on, so a handler that waits on I/O
 * can stop when the invoke is cancelled.
 */
export interface HandlerCall {
  /** The stage being invoked. */
  readonly stage: AnyStage;
  /**
   * The signal to stop on: an Input or Output handler gets the invoke's (a never-aborting one when the invoke has
   * none); a Wrap handler gets its activation's, narrowed by outer `next(context, { signal })` calls.
   */
  readonly signal: AbortSignal;
  /** The registered name of the running handler. */
  readonly handler: string;
}

/** Transforms the context before the Wrap phase. Must return a context (not undefined or null). */
export type InputHandler<TContext> = (context: TContext, run: HandlerCall) => TContext | PromiseLike<TContext>;

/** Options of `next()`. */
export interface NextOptions {
  /** Narrows the signal of the inner chain: it aborts when this or the outer signal aborts. */
  readonly signal?: AbortSignal;
}

/**
 * Runs the rest of the chain (inner Wrap handlers, then the terminal) and
 * returns its events. Without a context it passes on the context the handler received.
 */
export type Next<TContext, TEvent> = (context?: TContext, options?: NextOptions) => AsyncGenerator<TEvent, void, undefined>;

/** An async-generator layer around the terminal: may short-circuit, retry, filter or rewrite. */
export type WrapHandler<TContext, TEvent> = (context: TContext, next: Next<TContext, TEvent>, run: HandlerCall) => AsyncIterable<TEvent>;

/** Transforms the final result. Must return a {@link MiddlewareResult}. */
export type OutputHandler<TResult> = (
  result: MiddlewareResult<TResult>,
  run: HandlerCall,
) => MiddlewareResult<TResult> | PromiseLike<MiddlewareResult<TResult>>;

/** Options of `add`, `registrar.add` and per-invoke registrations. */
export interface AddOptions {
  /** Name used in errors, traces and `describe()`; defaults to the function's name. */
  readonly name?: string;
  /** Position key: lower runs outer / earlier; ties keep registration order. Default 0. */
  readonly order?: number;
  /** Key for `remove(id)`, replacement and ordering constraints; unique per registry. */
  readonly id?: string;
  /** Ids of handlers (same stage and phase) this one must run outside of / before. */
  readonly before?: readonly string[];
  /** Ids of handlers (same stage and phase) this one must run inside of / after. */
  readonly after?: readonly string[];
  /** With an `id` already registered, take that registration's place instead of failing. */
  readonly replace?: boolean;
  /** How many times a Wrap handler may call `next()` per activation. Default `'many'`. */
  readonly next?: NextPolicy;
}

/** Removes one registration (or one bundle); calling it again does nothing. */
export type Disposer = () => void;

/** The handler type that fits a target: inferred from the stage token, never spelled out. */
export type HandlerOf<TTarget> =
  TTarget extends PhaseToken<'input', infer TContext, infer _TResult, infer _TEvent>
    ? InputHandler<TContext>
    : TTarget extends PhaseToken<'output', infer _TContext, infer TResult, infer _TEvent>
      ? OutputHandler<TResult>
      : TTarget extends PhaseToken<'wrap', infer TContext, infer _TResult, infer TEvent>
        ? WrapHandler<TContext, TEvent>
        : TTarget extends MiddlewareStage<infer TContext, infer _TResult, infer TEvent>
          ? WrapHandler<TContext, TEvent>
          : never;

/** One registration given per invoke: `[target, handler, options?]`. */
export type Registration<TTarget extends Target = Target> =
  readonly [TTarget, HandlerOf<TTarget>] | readonly [TTarget, HandlerOf<TTarget>, AddOptions];
