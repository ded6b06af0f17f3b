import { MiddlewareError } from '../errors';
import { describeValue } from '../stage';
import type { WrapRun } from '../types';

/**
 * Builders for the errors the built-in middleware raise, so that each names
 * the stage and handler and says what to do.
 */

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

/** A built-in gave up after every attempt failed. */
export function middlewareFailed(run: WrapRun, problem: string, cause: unknown): MiddlewareError {
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
export function timedOut(run: WrapRun, ms: number): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_TIMEOUT',
    stage: run.stage.name,
    phase: 'wrap',
    handler: run.handler,
    message: `Wrap handler "${run.handler}" of stage "${run.stage.name}" timed out: the inner chain did not finish within ${ms} ms, so its signal was aborted. Raise the limit, or make the terminal honour run.signal so it stops promptly.`,
  });
}
