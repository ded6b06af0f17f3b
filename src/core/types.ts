/**
 * The core's pure types, what a user writes handlers, terminals and options
 * against, in three parts: stages (phases, stage and phase tokens, schemas,
 * targets and the helpers that read a stage's types), handlers (the handler
 * of each phase, what it learns of its call, `next()`, the options of
 * registering one) and the invoke (the terminal and what it learns of its
 * call, the check of a terminal argument, the state binding, the options of
 * `invoke` and `run`). No runtime code lives here.
 *
 * @packageDocumentation
 */
import type { Draft } from 'immer';
import type { MiddlewareResult } from './result';

/** The three phases a handler can be registered for. */
export type Phase = 'input' | 'wrap' | 'output';

/** How many times a Wrap handler may call `next()` in one activation. */
export type NextPolicy = 'many' | 'once' | 'at-most-once';

/** The outcome of a schema check, in the shape zod's `safeParse` returns. */
export type SchemaResult<T> = { readonly success: true; readonly data: T } | { readonly success: false; readonly error: unknown };

/**
 * A schema a stage checks values against. Zod schemas (v3 and v4) fit as they are.
 */
export interface Schema<T> {
  /** Checks `value`, returning the parsed value (defaults and transforms applied) or the error. */
  safeParse(value: unknown): SchemaResult<T>;
  /** Asynchronous variant, preferred when present so async refinements work. */
  safeParseAsync?(value: unknown): Promise<SchemaResult<T>>;
}

/** Options of {@link createStage}. */
export interface StageOptions<TContext, TResult extends TEvent, TEvent> {
  /** Recognises a result event; events it rejects stream through without being held. */
  readonly isResult?: ((event: TEvent) => event is TResult) | ((event: TEvent) => boolean);
  /** Checked once after the Input phase; the parsed context is what the Wrap phase receives. */
  readonly context?: Schema<TContext>;
  /** Checked once on the final result after the Output phase; the parsed value is what is yielded. */
  readonly result?: Schema<TResult>;
}

/** Phantom carrier of a stage's generics; never present at run time. */
declare const stageTypes: unique symbol;

/**
 * Function-typed fields make every generic invariant, so a `Stage<Narrow>`
 * cannot stand in for a `Stage<Wide>` (a handler for one would be unsound for the other).
 */
interface StageTypes<TContext, TResult, TEvent> {
  /** Invariant carrier of the context type. */
  readonly context: (context: TContext) => TContext;
  /** Invariant carrier of the result type. */
  readonly result: (result: TResult) => TResult;
  /** Invariant carrier of the event type. */
  readonly event: (event: TEvent) => TEvent;
}

/**
 * A token naming one step of a framework's loop. Created by {@link createStage};
 * compared by identity, never by name.
 */
export interface MiddlewareStage<TContext, TResult extends TEvent, TEvent = TResult> {
  /** Human-readable name, used in errors, traces and `describe()`. */
  readonly name: string;
  /** Target for Input handlers (transform the context). */
  readonly Input: PhaseToken<'input', TContext, TResult, TEvent>;
  /** Target for Wrap handlers (the async-generator onion around the terminal). */
  readonly Wrap: PhaseToken<'wrap', TContext, TResult, TEvent>;
  /** Target for Output handlers (transform the result). */
  readonly Output: PhaseToken<'output', TContext, TResult, TEvent>;
  /** The result guard given at creation, if any. */
  readonly isResult: ((event: TEvent) => boolean) | undefined;
  /** The context schema given at creation, if any. */
  readonly contextSchema: Schema<TContext> | undefined;
  /** The result schema given at creation, if any. */
  readonly resultSchema: Schema<TResult> | undefined;
  /** Phantom generics; never present at run time. */
  readonly [stageTypes]?: StageTypes<TContext, TResult, TEvent>;
}

/** A phase sub-token of a stage (`Stage.Input`, `Stage.Wrap`, `Stage.Output`). */
export interface PhaseToken<TPhase extends Phase, TContext, TResult extends TEvent, TEvent> {
  /** The phase this token targets. */
  readonly phase: TPhase;
  /** The stage the token belongs to. */
  readonly stage: MiddlewareStage<TContext, TResult, TEvent>;
  /** Phantom generics; never present at run time. */
  readonly [stageTypes]?: StageTypes<TContext, TResult, TEvent>;
}

/**
 * The type-erased stage used in storage. This is the package's one `any`
 * escape hatch: registries hold stages of every shape in one map, and each
 * public method restores the precise types from its own generic parameters.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the one escape hatch: stages of every shape share one map
export type AnyStage = MiddlewareStage<any, any, any>;

/** Anything `add` accepts as a target: a phase token or a bare stage (meaning Wrap). */
export type Target = AnyStage | AnyStage['Input'] | AnyStage['Wrap'] | AnyStage['Output'];

/** The context type of a stage. */
export type ContextOf<TStage> = TStage extends MiddlewareStage<infer TContext, infer _TResult, infer _TEvent> ? TContext : never;

/** The result type of a stage. */
export type ResultOf<TStage> = TStage extends MiddlewareStage<infer _TContext, infer TResult, infer _TEvent> ? TResult : never;

/** The event type of a stage. */
export type EventOf<TStage> = TStage extends MiddlewareStage<infer _TContext, infer _TResult, infer TEvent> ? TEvent : never;

// Handlers.

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

// The invoke.

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
