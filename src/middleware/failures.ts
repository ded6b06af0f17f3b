import { MiddlewareError } from '../errors/middleware-error';
import { describeValue } from '../util/describe-value';
import type { WrapRun } from '../stage/types';
import type { Timers } from '../util/timers';

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

/**
 * Checks that a factory's options argument is an object, so reading its
 * fields cannot fail with a bare TypeError.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for anything else.
 */
export function checkOptionsObject(factory: string, options: unknown, shape: string): void {
  if (options === null || typeof options !== 'object') throw invalidOption(factory, `options must be ${shape}`, options);
}

/**
 * Checks a count option (attempts, entries).
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` unless `value` is an integer of at least 1.
 */
export function positiveInteger(factory: string, name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw invalidOption(factory, `${name} must be an integer of at least 1`, value);
  return value;
}

/**
 * Checks a duration or rate option.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` unless `value` is a finite number > 0.
 */
export function positiveNumber(factory: string, name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw invalidOption(factory, `${name} must be a finite number > 0`, value);
  return value;
}

/**
 * Checks an optional callback option, so a wrong value is reported when the
 * factory is called rather than as a TypeError in the middle of an invoke.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `value` is neither undefined nor a function.
 */
export function optionalFunction<TFunction>(factory: string, name: string, value: TFunction | undefined): TFunction | undefined {
  if (value !== undefined && typeof value !== 'function') throw invalidOption(factory, `options.${name} must be a function`, value);
  return value;
}

/**
 * Checks an optional `timers` option for the methods the factory uses.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when a needed method is missing.
 */
export function optionalTimers<TTimers extends Partial<Timers>>(factory: string, value: TTimers | undefined, needs: readonly (keyof Timers)[]): TTimers | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || needs.some((method) => typeof value[method] !== 'function')) {
    throw invalidOption(factory, `options.timers must have ${needs.map((method) => `${method}()`).join(', ')}`, value);
  }
  return value;
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
