/**
 * The errors of the Restate adapter: it adds no code of its own, and raises
 * the core's `ERR_INVALID_OPTIONS` for a malformed argument.
 *
 * @packageDocumentation
 */
import { MiddlewareError } from '../core/index';
import { describeValue } from '../util/describe-value';

/** The error of a malformed argument of the entry point's functions. */
export function invalidRestateOption(caller: string, problem: string, found: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    phase: 'register',
    handler: caller,
    message: `${caller}(): ${problem}, got ${describeValue(found)}.`,
  });
}
