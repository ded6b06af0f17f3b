/**
 * What serves as a schema (MW-030, MW-031: anything with `safeParse`, zod's
 * or not) and how a value is parsed with one: asynchronously when the schema
 * can, the parsed value replacing the input, the issues given to the caller's
 * error on failure.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareError } from '../../src/core/errors';
import { isSchema, parseWithSchema } from '../../src/core/schema';
import type { Schema } from '../../src/core/types';

const safeParse = (value: unknown): { success: true; data: unknown } => ({ success: true, data: value });

describe('isSchema', () => {
  it.each([
    ['a zod schema', z.string(), true],
    ['an object with safeParse', { safeParse }, true],
    ['a function carrying safeParse', Object.assign(() => undefined, { safeParse }), true],
    ['an object whose safeParse is not a function', { safeParse: true }, false],
    ['an object with parse only', { parse: safeParse }, false],
    ['a function without safeParse', () => undefined, false],
    ['null', null, false],
    ['undefined', undefined, false],
    ['a string', 'safeParse', false],
  ])('tells whether %s serves as a schema', (_label, value, expected) => {
    expect(isSchema(value)).toBe(expected);
  });
});

describe('parseWithSchema', () => {
  const fail = (issues: unknown): MiddlewareError =>
    new MiddlewareError({ code: 'ERR_CONTEXT_INVALID', message: 'rejected.', stage: 'invokeModel', cause: issues });

  describe('with a schema that has only safeParse', () => {
    it('parses synchronously and answers the parsed value, not the input, in a box', async () => {
      const schema: Schema<unknown> = { safeParse: (value) => ({ success: true, data: { parsed: value } }) };
      await expect(parseWithSchema(schema, 1, fail)).resolves.toEqual({ data: { parsed: 1 } });
    });

    it('answers a thenable it parsed as it is, unawaited', async () => {
      const thenable = {
        then: (resolve: (value: unknown) => void): void => {
          resolve('replaced');
        },
      };
      const schema: Schema<unknown> = { safeParse: () => ({ success: true, data: thenable }) };
      expect((await parseWithSchema(schema, 1, fail)).data).toBe(thenable);
    });
  });

  describe('with a schema that also has safeParseAsync', () => {
    it('prefers safeParseAsync, so async refinements work', async () => {
      const schema = z.string().refine(async (text) => Promise.resolve(text.length > 2));
      await expect(parseWithSchema(schema, 'long', fail)).resolves.toEqual({ data: 'long' });
    });

    it('returns what safeParseAsync parsed', async () => {
      const schema: Schema<unknown> = {
        safeParse: () => ({ success: true, data: 'sync' }),
        safeParseAsync: () => Promise.resolve({ success: true, data: 'async' }),
      };
      await expect(parseWithSchema(schema, 'input', fail)).resolves.toEqual({ data: 'async' });
    });
  });

  describe('when parsing fails', () => {
    it("throws the caller's error built from the schema's issues", async () => {
      const issues = { issues: [{ path: [], message: 'Expected string' }] };
      const schema: Schema<unknown> = { safeParse: () => ({ success: false, error: issues }) };
      const error: unknown = await parseWithSchema(schema, 1, fail).catch((thrown: unknown) => thrown);
      expect(error instanceof MiddlewareError && { code: error.code, cause: error.cause }).toEqual({
        code: 'ERR_CONTEXT_INVALID',
        cause: issues,
      });
    });
  });
});
