import type { ErrorPhase } from './types';

/** Marks errors of this package across two installed copies, where `instanceof` fails. */
const ERROR_MARKER: unique symbol = Symbol.for('staged-middleware.error') as never;

/**
 * Stable codes of {@link MiddlewareError}. Each is a rule in `spec/SPEC.md`.
 */
export type MiddlewareErrorCode =
  /** The chain yielded no event, or its last event failed the stage's `isResult`. */
  | 'ERR_NO_RESULT'
  /** An Output handler returned something that is not a `MiddlewareResult`. */
  | 'ERR_OUTPUT_CONTRACT'
  /** An Input handler returned undefined or null. */
  | 'ERR_INPUT_CONTRACT'
  /** A handler or terminal is not a function, or did not return an async iterable. */
  | 'ERR_INVALID_HANDLER'
  /** `add` or `invoke` was given something that is not a genuine stage or phase token. */
  | 'ERR_UNKNOWN_PHASE'
  /** `createStage` was given a bad name or bad options, or the realm's standard agent stages are not genuine (MW-200). */
  | 'ERR_INVALID_STAGE'
  /** `add` or `invoke` was given bad options. */
  | 'ERR_INVALID_OPTIONS'
  /** The stage's context schema rejected the context after the Input phase. */
  | 'ERR_CONTEXT_INVALID'
  /** The stage's result schema rejected the final result after the Output phase. */
  | 'ERR_RESULT_INVALID'
  /** The invoke's signal was aborted. */
  | 'ERR_ABORTED'
  /** A layer yielded `undefined`, which is never a valid event. */
  | 'ERR_INVALID_EVENT'
  /** `next()` was called after the invoke had settled. */
  | 'ERR_NEXT_AFTER_SETTLE'
  /** A Wrap handler broke its `next()` policy. */
  | 'ERR_NEXT_POLICY'
  /** The state binding returned a value immer cannot draft. */
  | 'ERR_INVALID_STATE'
  /** Ordering constraints form a cycle. */
  | 'ERR_ORDER_CYCLE'
  /** An ordering constraint contradicts the nesting of scopes. */
  | 'ERR_ORDER_CONFLICT'
  /** An id is registered twice without `replace: true`. */
  | 'ERR_DUPLICATE_ID'
  /** A built-in middleware gave up (every attempt failed). */
  | 'ERR_MIDDLEWARE_FAILED'
  /** A built-in timeout expired. */
  | 'ERR_TIMEOUT'
  /** An agent was asked to run while one of its runs was still going. */
  | 'ERR_AGENT_BUSY'
  /** An agent halted on interrupts was given new input, or resume responses that fit no pending interrupt. */
  | 'ERR_INTERRUPT_PENDING'
  /** `interrupt()` would have halted after its run produced its result (or ended), when halting can no longer take effect. */
  | 'ERR_INTERRUPT_AFTER_RESULT'
  /** An agent snapshot is of a format version this copy of the library does not read (a newer one, say). */
  | 'ERR_SNAPSHOT_VERSION'
  /** A scripted model was called more times than its script has turns. */
  | 'ERR_SCRIPT_EXHAUSTED';

/** Constructor options of {@link MiddlewareError}. */
export interface MiddlewareErrorOptions {
  /** The stable code. */
  readonly code: MiddlewareErrorCode;
  /** What happened and what to do about it. */
  readonly message: string;
  /** Name of the stage involved. */
  readonly stage?: string | undefined;
  /** Phase involved. */
  readonly phase?: ErrorPhase | undefined;
  /** Name of the handler involved. */
  readonly handler?: string | undefined;
  /** The underlying error or abort reason. */
  readonly cause?: unknown;
}

/**
 * The one error class of the package. Every contract violation raises it with
 * a stable `code`, the stage, phase and handler involved, and a message that
 * says what to do. Errors thrown by user code are never wrapped in it.
 *
 * @example
 * ```ts
 * try { await registry.run(Stage, context, terminal) }
 * catch (error) { if (MiddlewareError.isInstance(error) && error.code === 'ERR_ABORTED') ... }
 * ```
 */
export class MiddlewareError extends Error {
  /** Cross-copy marker checked by {@link MiddlewareError.isInstance}. */
  readonly [ERROR_MARKER] = true;
  /** The stable code. */
  readonly code: MiddlewareErrorCode;
  /** Name of the stage involved, if any. */
  readonly stage: string | undefined;
  /** Phase involved, if any. */
  readonly phase: ErrorPhase | undefined;
  /** Name of the handler involved, if any. */
  readonly handler: string | undefined;

  /** Creates an error; prefer the codes' documented meanings. */
  constructor(options: MiddlewareErrorOptions) {
    super(`[${options.code}] ${options.message}`, 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'MiddlewareError';
    this.code = options.code;
    this.stage = options.stage;
    this.phase = options.phase;
    this.handler = options.handler;
  }

  /**
   * True for a `MiddlewareError` from any installed copy of this package.
   * Use it instead of `instanceof`.
   */
  static isInstance(value: unknown): value is MiddlewareError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[ERROR_MARKER] === true;
  }
}
