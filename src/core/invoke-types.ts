/**
 * Pure types of an invoke: the terminal (the framework's own step) and what
 * it learns about the invoke, the type check of a terminal argument, the
 * state binding, and the options of `invoke` and `run`. No runtime code lives
 * here.
 *
 * @packageDocumentation
 */
import type { Draft } from 'immer';
import type { Registration } from './handler-types';
import type { AnyStage, MiddlewareStage } from './types';

/** What the terminal learns about the invoke it runs in. */
export interface TerminalCall<TState> {
  /** The stage being invoked. */
  readonly stage: AnyStage;
  /** The signal of this call (narrowed by outer `next(context, { signal })` calls). */
  readonly signal: AbortSignal;
  /** A fresh immer draft of the state snapshot when a state binding was given, else undefined. */
  readonly state: Draft<TState> | undefined;
}

/** The framework's own step: the innermost function the chain wraps. */
export type Terminal<TContext, TEvent, TState = unknown> = (context: TContext, run: TerminalCall<TState>) => AsyncIterable<TEvent>;

/**
 * The state a terminal's `run.state` can hold: without a `state` option
 * (`TState` left `unknown`) it is always undefined, so a terminal typed for
 * any state fits.
 */
type BoundState<TState> = unknown extends TState ? never : TState;

/**
 * The type of the terminal argument of `invoke`, `run` and `runStage`: the
 * terminal's own type when it fits the stage, otherwise a one-line message
 * saying what is wrong, which the compiler shows as the parameter type.
 * The terminal is a type parameter of its own, so the stage alone decides
 * the context and event types, and an unannotated inline terminal yields
 * events of the stage's type (`{ type: 'done' }` keeps its literal type).
 */
export type TerminalArgument<TTerminal, TContext, TEvent, TState> = [TTerminal] extends [Terminal<TContext, TEvent, BoundState<TState>>]
  ? TTerminal
  : [TTerminal] extends [(context: TContext, run: TerminalCall<BoundState<TState>>) => AsyncIterable<unknown>]
    ? 'Terminal yields events that are not events of this stage (compare its yields with EventOf<typeof Stage>)'
    : [TTerminal] extends [(context: TContext, run: TerminalCall<BoundState<TState>>) => unknown]
      ? 'Terminal must return an async iterable of events of this stage (write it as an async function*)'
      : [TTerminal] extends [(context: TContext, run: never) => unknown]
        ? 'Terminal run parameter does not fit TerminalCall<TState> (its state type must be that of the state option)'
        : [TTerminal] extends [(...parameters: never[]) => unknown]
          ? 'Terminal does not accept the context of this stage as its first parameter (compare it with ContextOf<typeof Stage>)'
          : 'Terminal must be a function (context, run) returning an async iterable of events of this stage';

/**
 * Read and write access to state the terminal may change (model state, say).
 * `get()` hands the value over to the library: it is deep-frozen in place
 * (parts you froze yourself are taken as they are; a value with a reference
 * cycle is rejected with `ERR_INVALID_STATE`), so do not mutate it afterwards.
 * `set()` gives you the value to continue with.
 */
export interface StateBinding<TState> {
  /** Reads the current state, once per invoke, and hands it over: it is deep-frozen in place and must not be mutated afterwards. */
  get(): TState;
  /** Receives the new state after a successful invoke: a new frozen value (untouched parts shared), the one to continue with. */
  set(next: TState): void;
}

/** The terminal type of a stage, for a given state type. */
export type TerminalOf<TStage, TState = unknown> =
  TStage extends MiddlewareStage<infer TContext, infer _TResult, infer TEvent> ? Terminal<TContext, TEvent, TState> : never;

/** Options of `invoke` and `run`. */
export interface InvokeOptions<TState = unknown> {
  /** Aborts the invoke: it ends with `ERR_ABORTED` at the next event boundary. */
  readonly signal?: AbortSignal;
  /** State the terminal may change through an immer draft; written back only on success. */
  readonly state?: StateBinding<TState>;
  /** Handlers for this invoke only; they sit inside every registered handler. */
  readonly use?: readonly Registration[];
}
