/**
 * Checking a value against a stage's context or result schema.
 *
 * @packageDocumentation
 */
import type { MiddlewareError } from '../errors/middleware-error';
import type { Schema } from './types';

/**
 * Parses `value` with `schema`, asynchronously when the schema can (so async
 * refinements work), and returns the parsed value, which replaces the input.
 *
 * @throws The error `fail` builds from the schema's issues when parsing fails.
 */
export async function parseWithSchema(schema: Schema<unknown>, value: unknown, fail: (issues: unknown) => MiddlewareError): Promise<unknown> {
  const outcome = schema.safeParseAsync !== undefined ? await schema.safeParseAsync(value) : schema.safeParse(value);
  if (!outcome.success) throw fail(outcome.error);
  return outcome.data;
}
