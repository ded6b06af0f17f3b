import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareError, MiddlewareResult, createStage } from '../../src/index';
import { validate } from '../../src/middleware/index';
import { runStage, scriptedTerminal } from '../../src/testing/index';

const ContextSchema = z.object({ prompt: z.string().min(1), temperature: z.number().default(0.5) });
const ResultSchema = z.object({ text: z.string().transform((text) => text.trim()) });
type Context = z.input<typeof ContextSchema>;
type Result = { text: string };
const Stage = createStage<Context, Result>('answer');

describe('validate', () => {
  describe('as a bundle on a stage', () => {
    it('passes the parsed context and the parsed result on', async () => {
      const terminal = scriptedTerminal([[{ text: '  padded  ' }]]);
      const run = await runStage(Stage, { context: { prompt: 'hi' }, terminal, use: [validate({ context: ContextSchema, result: ResultSchema }).on(Stage)] });
      expect(terminal.calls[0]?.context).toEqual({ prompt: 'hi', temperature: 0.5 });
      expect(run.result).toEqual({ text: 'padded' });
      expect(Object.keys(run.calls)).toEqual(['validateContext', 'validateResult']);
    });

    it('rejects a bad context with ERR_CONTEXT_INVALID naming the stage, with the zod error as cause', async () => {
      const run = await runStage(Stage, { context: { prompt: '' }, terminal: scriptedTerminal([[{ text: 'x' }]]), use: [validate({ context: ContextSchema }).on(Stage)] });
      const error = run.error as MiddlewareError;
      expect([error.code, error.stage, error.phase, error.handler]).toEqual(['ERR_CONTEXT_INVALID', 'answer', 'input', 'validateContext']);
      expect(error.cause).toBeInstanceOf(z.ZodError);
      expect((error.cause as z.ZodError).issues.map((issue) => issue.path)).toEqual([['prompt']]);
    });

    it('rejects a bad result with ERR_RESULT_INVALID', async () => {
      const run = await runStage(Stage, { context: { prompt: 'hi' }, terminal: scriptedTerminal([[{ text: 42 } as unknown as Result]]), use: [validate({ result: ResultSchema }).on(Stage)] });
      const error = run.error as MiddlewareError;
      expect([error.code, error.stage, error.phase, error.handler]).toEqual(['ERR_RESULT_INVALID', 'answer', 'output', 'validateResult']);
      expect((error.cause as z.ZodError).issues.map((issue) => issue.path)).toEqual([['text']]);
    });

    it('registers only the handlers a schema was given for', async () => {
      const run = await runStage(Stage, { context: { prompt: 'hi' }, terminal: scriptedTerminal([[{ text: 'x' }]]), use: [validate({ result: ResultSchema }).on(Stage)] });
      expect(Object.keys(run.calls)).toEqual(['validateResult']);
    });
  });

  describe('as two handlers', () => {
    it('checks with the handlers alone, without a stage name', async () => {
      const { input, output } = validate({ context: ContextSchema, result: ResultSchema });
      expect(await input({ prompt: 'p' })).toEqual({ prompt: 'p', temperature: 0.5 });
      expect((await output(new MiddlewareResult<Result>({ text: ' t ' }))).value).toEqual({ text: 't' });
      const error = await Promise.resolve(input({ prompt: '' })).catch((caught: unknown) => caught);
      expect(MiddlewareError.isInstance(error) && [error.code, error.stage]).toEqual(['ERR_CONTEXT_INVALID', undefined]);
    });

    it('passes values through unchanged without schemas', async () => {
      const { input, output } = validate({});
      const context = { prompt: '' };
      const result = new MiddlewareResult<Result>({ text: ' raw ' });
      expect(await input(context)).toBe(context);
      expect(await output(result)).toBe(result);
    });

    it('uses safeParse when a schema has no safeParseAsync', async () => {
      const schema = { safeParse: (value: unknown) => ({ success: true as const, data: { seen: value } }) };
      const { input } = validate({ context: schema });
      expect(await input({ seen: 1 })).toEqual({ seen: { seen: 1 } });
    });
  });

  describe('under abort', () => {
    it('does not run the result check once the invoke is aborted', async () => {
      const controller = new AbortController();
      const aborting = async function* aborting(): AsyncGenerator<Result, void, undefined> {
        controller.abort('stop');
        yield { text: 'x' };
      };
      const run = await runStage(Stage, { context: { prompt: 'hi' }, terminal: aborting, signal: controller.signal, use: [validate({ result: ResultSchema }).on(Stage)] });
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_ABORTED');
      expect(run.calls.validateResult?.activations).toBe(0);
    });
  });

  describe('options', () => {
    it.each([
      { schemas: null, problem: 'expects' },
      { schemas: { context: {} }, problem: 'context' },
      { schemas: { result: 'zod' }, problem: 'result' },
    ])('rejects bad $problem with ERR_INVALID_OPTIONS', ({ schemas, problem }) => {
      expect(() => validate(schemas as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'validate', message: expect.stringContaining(problem) }));
    });
  });
});
