/**
 * Where the contract errors of the core come from: the one error class,
 * {@link MiddlewareError}, the core's error table (code → the rule of
 * `spec/SPEC.md` that defines it → what it means), and {@link codedError},
 * through which every message builder of `messages.ts` makes its error. The
 * table of `docs/errors.md` is generated from the tables (`npm run
 * docs:errors`; a test checks that the page is up to date and that every
 * rule exists).
 *
 * Each subsystem keeps a table of its own (`middleware/errors.ts`,
 * `agent/errors.ts`, `testing/errors.ts`) and adds its codes to the global
 * {@link StagedMiddlewareErrorCodes} interface, so `MiddlewareError.code` is
 * typed as the codes of every subsystem a program imports, and the core's own
 * codes do not change when a subsystem adds one.
 *
 * @packageDocumentation
 */
import { brand, isBranded } from '../util/brand';
import type { Phase } from './types';

/** Where a {@link MiddlewareError} arose: a handler phase, the terminal, or registration. */
export type ErrorPhase = Phase | 'terminal' | 'register';

/** One row of an error table. */
export interface ErrorCodeEntry {
  /** The rule of `spec/SPEC.md` that defines when the code is raised. */
  readonly rule: `MW-${string}`;
  /** When the code is raised, in a few words (the "when" column of `docs/errors.md`). */
  readonly meaning: string;
}

/** The shape every subsystem's table has. */
export type ErrorTable = Readonly<Record<`ERR_${string}`, ErrorCodeEntry>>;

/** The core's codes: stages, registration, resolution and the invoke. */
export const CORE_ERROR_CODES = {
  ERR_NO_RESULT: { rule: 'MW-006', meaning: "the chain yielded no event, or its last event fails the stage's `isResult`" },
  ERR_INVALID_EVENT: { rule: 'MW-008', meaning: 'a layer yielded `undefined`' },
  ERR_INPUT_CONTRACT: { rule: 'MW-010', meaning: 'an Input handler returned `undefined` or `null`' },
  ERR_OUTPUT_CONTRACT: { rule: 'MW-011', meaning: 'an Output handler returned something that is not a `MiddlewareResult`' },
  ERR_INVALID_HANDLER: {
    rule: 'MW-012',
    meaning:
      'a handler, terminal, instrumentation or bundle is not what it must be: a handler that is not a function, a Wrap handler or terminal that did not return an async iterable (write `async function*`)',
  },
  ERR_INVALID_STAGE: {
    rule: 'MW-002',
    meaning:
      '`createStage` got a bad name or bad options, or a copy of the library found something other than genuine stages where the realm keeps its standard stages',
  },
  ERR_UNKNOWN_PHASE: {
    rule: 'MW-040',
    meaning: '`add`, `remove`, `invoke` or `describe` got something that is not a stage or phase token from `createStage`',
  },
  ERR_INVALID_OPTIONS: {
    rule: 'MW-040',
    meaning:
      '`add`, `invoke`, `next()`, or a factory or constructor of any entry point (a built-in middleware, `new Agent()`, an agent run, a test double) got options of the wrong shape',
  },
  ERR_DUPLICATE_ID: { rule: 'MW-044', meaning: 'an id was registered twice without `replace: true`' },
  ERR_AMBIGUOUS_NAME: {
    rule: 'MW-343',
    meaning: '`replace: true` without an id found several handlers of that name on the stage and phase in the registry',
  },
  ERR_ORDER_CYCLE: { rule: 'MW-042', meaning: 'ordering constraints form a cycle (the message lists it)' },
  ERR_ORDER_CONFLICT: { rule: 'MW-046', meaning: 'an ordering constraint contradicts the nesting of scopes' },
  ERR_NEXT_POLICY: { rule: 'MW-049', meaning: "a Wrap handler broke its `next: 'once' | 'at-most-once'` policy" },
  ERR_NEXT_AFTER_SETTLE: { rule: 'MW-017', meaning: '`next()` was called after the invoke settled' },
  ERR_CONTEXT_INVALID: {
    rule: 'MW-030',
    meaning: "the stage's context schema (or `validate`'s) rejected the context (the schema's error is the `cause`)",
  },
  ERR_RESULT_INVALID: {
    rule: 'MW-031',
    meaning: "the stage's result schema (or `validate`'s) rejected the result (the schema's error is the `cause`)",
  },
  ERR_ABORTED: {
    rule: 'MW-024',
    meaning: "the invoke's signal aborted, or a wait of a built-in middleware was cut short by it (the abort reason is the `cause`)",
  },
  ERR_INVALID_STATE: { rule: 'MW-027', meaning: 'the state binding returned a value immer cannot draft, or one with a reference cycle' },
} as const satisfies ErrorTable;

/** A code of the core's table. */
export type CoreErrorCode = keyof typeof CORE_ERROR_CODES;

declare global {
  /**
   * Every error code of the subsystems of `staged-middleware` a program
   * imports, each subsystem adding its table's codes (the values are the
   * table rows). Not for users to extend: the codes are the package's.
   */
  interface StagedMiddlewareErrorCodes extends Record<CoreErrorCode, ErrorCodeEntry> {}
}

/** The stable code of a {@link MiddlewareError}: a code of the table of a subsystem the program imports. */
export type MiddlewareErrorCode = keyof StagedMiddlewareErrorCodes;

/** Constructor options of {@link MiddlewareError}. */
export interface MiddlewareErrorOptions {
  /** The stable code (see the error tables: the core's below, and one per subsystem). */
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

/** Who a message is about. */
export interface ErrorSite {
  /** Stage name. */
  readonly stage: string;
  /** Phase or `'terminal'`. */
  readonly phase: ErrorPhase;
  /** Handler name (`'terminal'` for the terminal). */
  readonly handler: string;
}

/** The error a message builder makes: `site` names where it arose, `cause` what led to it. */
export function codedError(
  code: MiddlewareError['code'],
  site: { readonly [TKey in keyof ErrorSite]?: ErrorSite[TKey] | undefined },
  message: string,
  cause?: unknown,
): MiddlewareError {
  return new MiddlewareError({ ...site, code, message, ...(cause === undefined ? {} : { cause }) });
}
