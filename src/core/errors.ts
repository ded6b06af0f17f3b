import type { ErrorPhase } from './types';
import { brand, isBranded } from '../util/brand';
import type { MiddlewareErrorCode } from './error-codes';

/** Constructor options of {@link MiddlewareError}. */
export interface MiddlewareErrorOptions {
  /** The stable code (see the error tables, `errors/codes.ts` and one per subsystem). */
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
 * try {
 *   await registry.run(ModelStage, context, callModel, { signal });
 * } catch (error) {
 *   if (MiddlewareError.isInstance(error) && error.code === 'ERR_ABORTED') console.log('cancelled');
 *   else throw error;
 * }
 * ```
 */
export class MiddlewareError extends Error {
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
    brand(this, 'error');
  }

  /**
   * True for a `MiddlewareError` created by any copy of this package in the
   * realm; never for a lookalike. Use it instead of `instanceof`, which fails
   * across two installed copies.
   */
  static isInstance(value: unknown): value is MiddlewareError {
    return isBranded(value, 'error');
  }
}
