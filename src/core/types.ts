/**
 * Pure types of stages: phases, stage and phase tokens, schemas, targets and
 * the helpers that read a stage's types. The handlers of each phase are in
 * `handler-types.ts`, the terminal and the invoke options in
 * `invoke-types.ts`. No runtime code lives here.
 *
 * @packageDocumentation
 */

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
