/**
 * The errors of the built-in middleware: the table of the codes they add
 * (code → rule of `spec/SPEC.md` → meaning), and every message builder of
 * the subsystem, so that each error names the stage and handler and says
 * what to do. The codes of the core they raise too (`ERR_INVALID_OPTIONS`,
 * `ERR_ABORTED`, ...) are in the core's table, `core/errors.ts`.
 *
 * @packageDocumentation
 */
import type { ErrorCodeEntry, ErrorTable } from '../core/internal';
import { MiddlewareError } from '../core/index';
import type { HandlerCall } from '../core/index';
import { isBranded } from '../util/brand';
import { describeValue } from '../util/describe-value';

/** The codes the built-in middleware add. */
export const MIDDLEWARE_ERROR_CODES = {
  ERR_MIDDLEWARE_FAILED: {
    rule: 'MW-088',
    meaning: "a built-in middleware gave up: `regenerate`'s check rejected every attempt (every attempt's error is kept)",
  },
  ERR_TIMEOUT: { rule: 'MW-089', meaning: 'the built-in `timeout` expired' },
} as const satisfies ErrorTable;

/** A code the built-in middleware add (their table, not the core's codes they raise too). */
export type BuiltInErrorCode = keyof typeof MIDDLEWARE_ERROR_CODES;

declare global {
  interface StagedMiddlewareErrorCodes extends Record<BuiltInErrorCode, ErrorCodeEntry> {}
}

/** A factory was given an option it cannot work with. */
export function invalidOption(factory: string, problem: string, value: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    phase: 'register',
    handler: factory,
    message: `${factory}(): ${problem}, got ${describeValue(value)}.`,
  });
}

/** True for an `ERR_ABORTED` error from any installed copy of the package. */
export function isAbortError(error: unknown): boolean {
  return MiddlewareError.isInstance(error) && error.code === 'ERR_ABORTED';
}

/**
 * True for an interrupt signal of any copy of the agent kit in the realm: a
 * question to a human, which `retry`, `fallback` and `regenerate` pass
 * through and never count as a failure (MW-083). Recognised by its brand in
 * the realm-wide record, so the built-in middleware never load the agent kit.
 */
export function isInterruptSignal(error: unknown): boolean {
  return isBranded(error, 'interrupt-signal');
}

/** A built-in gave up after every attempt failed. */
export function middlewareFailed(run: HandlerCall, problem: string, cause: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_MIDDLEWARE_FAILED',
    stage: run.stage.name,
    phase: 'wrap',
    handler: run.handler,
    message: `Wrap handler "${run.handler}" of stage "${run.stage.name}" gave up: ${problem}. The cause is an AggregateError holding every attempt's error, first attempt first.`,
    cause,
  });
}

/** A timeout expired before the inner chain finished. */
export function timedOut(run: HandlerCall, ms: number): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_TIMEOUT',
    stage: run.stage.name,
    phase: 'wrap',
    handler: run.handler,
    message: `Wrap handler "${run.handler}" of stage "${run.stage.name}" timed out: the inner chain did not finish within ${ms} ms, so its signal was aborted. Raise the limit, or make the terminal honour run.signal so it stops promptly.`,
  });
}

/** Who is waiting, for the error raised when the wait is aborted. */
export interface Waiter {
  /** Stage name. */
  readonly stage: string;
  /** Handler name. */
  readonly handler: string;
}

/** The error of a wait cut short by its signal. */
export function abortedWait(waiter: Waiter, reason: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_ABORTED',
    stage: waiter.stage,
    phase: 'wrap',
    handler: waiter.handler,
    message: `Wrap handler "${waiter.handler}" of stage "${waiter.stage}" was waiting when its signal aborted; the wait ended at once. The abort reason is the cause.`,
    cause: reason,
  });
}

/** The error of a value `validate`'s schema rejected. */
export function validationFailed(stage: string, which: 'context' | 'result', issues: unknown): MiddlewareError {
  const handler = which === 'context' ? 'validateContext' : 'validateResult';
  const where = `${which === 'context' ? 'Input' : 'Output'} handler "${handler}" of stage "${stage}"`;
  return new MiddlewareError({
    code: which === 'context' ? 'ERR_CONTEXT_INVALID' : 'ERR_RESULT_INVALID',
    stage,
    phase: which === 'context' ? 'input' : 'output',
    handler,
    message:
      which === 'context'
        ? `${where} rejected the context. The schema's issues are in the cause; fix the caller's context or the Input handler that produced it.`
        : `${where} rejected the result. The schema's issues are in the cause; fix the terminal, the Wrap handler or the Output handler that produced it.`,
    cause: issues,
  });
}

/** The error `cache` reports for an answer of its store's `get` that is not an entry; like the default warning, it names neither the key nor what the store holds. */
export function notACacheEntry(answer: unknown, run: HandlerCall): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: run.stage.name,
    phase: 'wrap',
    handler: run.handler,
    // No closing full stop: the default warning quotes this message mid-sentence.
    message: `options.store.get() of Wrap handler "${run.handler}" of stage "${run.stage.name}" answered ${Array.isArray(answer) ? 'an array' : `a value of type ${typeof answer}`}, which is not a cache entry { events: [...], expiresAt?: number }; a store shared with other programs may hold other values under the same key, so give the cache its own namespace or key prefix`,
  });
}

/** The error of a `rateLimit` key function that returned something other than a string (MW-278). */
export function keyNotAString(run: HandlerCall, value: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: run.stage.name,
    phase: 'wrap',
    handler: run.handler,
    message: `options.key() of Wrap handler "${run.handler}" of stage "${run.stage.name}" returned ${describeValue(value)}; it must return a string (the user or tenant the call counts against), synchronously.`,
  });
}
