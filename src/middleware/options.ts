/**
 * Checks of the options the built-in middleware factories take, so that a
 * wrong value is reported when the factory is called, naming the option,
 * rather than as a TypeError in the middle of an invoke.
 *
 * @packageDocumentation
 */
import type { Timers } from '../util/timers';
import { invalidOption } from './errors';
import { isObject } from '../util/is-object';

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
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw invalidOption(factory, `${name} must be an integer of at least 1`, value);
  return value;
}

/**
 * Checks a duration or rate option.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` unless `value` is a finite number > 0.
 */
export function positiveNumber(factory: string, name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw invalidOption(factory, `${name} must be a finite number > 0`, value);
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
export function optionalTimers<TTimers extends Partial<Timers>>(
  factory: string,
  value: TTimers | undefined,
  needs: readonly (keyof Timers)[],
): TTimers | undefined {
  if (value === undefined) return undefined;
  if (!isObject(value) || needs.some((method) => typeof value[method] !== 'function')) {
    throw invalidOption(factory, `options.timers must have ${needs.map((method) => `${method}()`).join(', ')}`, value);
  }
  return value;
}
