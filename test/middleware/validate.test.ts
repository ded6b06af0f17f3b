import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareError, createStage } from '../../src/core/index';
import { validate } from '../../src/middleware/index';
import { runStage, scriptedTerminal } from '../../src/testing/index';

const ContextSchema = z.object({ prompt: z.string().min(1), temperature: z.number().default(0.5) });
const ResultSchema = z.object({ text: z.string().transform((text) => text.trim()) });
type Context = z.input<typeof ContextSchema>;
interface Result {
  text: string;
}
const Stage = createStage<Context, Result>('answer');

describe('validate', () => {
  describe('as a bundle on a stage', () => {
    it('passes the parsed context and the parsed result on', async () => {
      const terminal = scriptedTerminal([[{ text: '  padded  ' }]]);
      const run = await runStage(Stage, {
        context: { prompt: 'hi' },
        terminal,
        use: [validate(Stage, { context: ContextSchema, result: ResultSchema })],
      });
      expect(terminal.calls[0]?.context).toEqual({ prompt: 'hi', temperature: 0.5 });
      expect(run.result).toEqual({ text: 'padded' });
      expect(Object.keys(run.calls)).toEqual(['validateContext', 'validateResult']);
    });

    it('rejects a bad context with ERR_CONTEXT_INVALID naming the stage, with the zod error as cause', async () => {
      const run = await runStage(Stage, {
        context: { prompt: '' },
        terminal: scriptedTerminal([[{ text: 'x' }]]),
        use: [validate(Stage, { context: ContextSchema })],
      });
      const error = run.error as MiddlewareError;
      expect([error.code, error.stage, error.phase, error.handler]).toEqual(['ERR_CONTEXT_INVALID', 'answer', 'input', 'validateContext']);
      expect(error.cause).toBeInstanceOf(z.ZodError);
      expect((error.cause as z.ZodError).issues.map((issue) => issue.path)).toEqual([['prompt']]);
    });

    it('rejects a bad result with ERR_RESULT_INVALID', async () => {
      const run = await runStage(Stage, {
        context: { prompt: 'hi' },
        terminal: scriptedTerminal([[{ text: 42 } as unknown as Result]]),
        use: [validate(Stage, { result: ResultSchema })],
      });
      const error = run.error as MiddlewareError;
      expect([error.code, error.stage, error.phase, error.handler]).toEqual(['ERR_RESULT_INVALID', 'answer', 'output', 'validateResult']);
      expect((error.cause as z.ZodError).issues.map((issue) => issue.path)).toEqual([['text']]);
    });

    it.each([
      ['a result schema', { result: ResultSchema }, ['validateResult']],
      ['a context schema', { context: ContextSchema }, ['validateContext']],
      ['no schema', {}, []],
    ])('registers only the handlers a schema was given for, with %s', async (_name, schemas, handlers) => {
      const run = await runStage(Stage, {
        context: { prompt: 'hi' },
        terminal: scriptedTerminal([[{ text: 'x' }]]),
        use: [validate(Stage, schemas)],
      });
      expect([Object.keys(run.calls), run.result]).toEqual([handlers, { text: 'x' }]);
    });
  });

  describe('with a schema without safeParseAsync', () => {
    it('parses with safeParse', async () => {
      const schema = { safeParse: (value: unknown) => ({ success: true as const, data: { prompt: `seen ${(value as Context).prompt}` } }) };
      const terminal = scriptedTerminal([[{ text: 'x' }]]);
      await runStage(Stage, { context: { prompt: 'hi' }, terminal, use: [validate(Stage, { context: schema })] });
      expect(terminal.calls[0]?.context).toEqual({ prompt: 'seen hi' });
    });
  });

  describe('under abort', () => {
    it('does not run the result check once the invoke is aborted', async () => {
      const controller = new AbortController();
      const aborting = async function* aborting(): AsyncGenerator<Result, void, undefined> {
        controller.abort('stop');
        yield { text: 'x' };
      };
      const run = await runStage(Stage, {
        context: { prompt: 'hi' },
        terminal: aborting,
        signal: controller.signal,
        use: [validate(Stage, { result: ResultSchema })],
      });
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
      expect(() => validate(Stage, schemas as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'validate', message: expect.stringContaining(problem) }),
      );
    });

    it.each([
      ['a phase token', Stage.Input],
      ['a copy of the stage', { ...Stage }],
    ])('rejects %s where the stage goes with ERR_INVALID_OPTIONS', (_label, stage) => {
      expect(() => validate(stage as never, { context: ContextSchema })).toThrow(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          handler: 'validate',
          message: expect.stringContaining('its first argument must be a stage from createStage()'),
        }),
      );
    });
  });
});
