/**
 * Schemas (zod's, or anything with `safeParse`): recognising one, and
 * parsing a value with it, for a stage's own schemas and for `validate`.
 *
 * @packageDocumentation
 */
import type { MiddlewareError } from './errors';
import type { Schema } from './types';

/** Whether `value` can serve as a schema: it has a `safeParse` method. */
export function isSchema(value: unknown): value is Schema<unknown> {
  return (
    ((value !== null && typeof value === 'object') || typeof value === 'function') &&
    typeof (value as { safeParse?: unknown }).safeParse === 'function'
  );
}

/** A parsed value, boxed: a promise of the value itself would adopt a parsed value that is a thenable (MW-039). */
export interface Parsed {
  /** The parsed value, which replaces the input. */
  readonly data: unknown;
}

/**
 * Parses `value` with `schema`, asynchronously when the schema can (so async
 * refinements work), and answers the parsed value, which replaces the input.
 *
 * @throws The error `fail` builds from the schema's issues when parsing fails.
 */
export async function parseWithSchema(
  schema: Schema<unknown>,
  value: unknown,
  fail: (issues: unknown) => MiddlewareError,
): Promise<Parsed> {
  const outcome = schema.safeParseAsync !== undefined ? await schema.safeParseAsync(value) : schema.safeParse(value);
  if (!outcome.success) throw fail(outcome.error);
  return { data: outcome.data };
}
