import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createStage, MiddlewareRegistry, type Schema } from '../../src/core/index';
import { fields } from '../assertions';
import { consume, emitting, type Context } from './phases-fixtures';

describe('MiddlewareRegistry.invoke', () => {
  describe('context schema', () => {
    const Typed = createStage<{ prompt: string; temperature: number }, string>('typed', {
      context: z.object({ prompt: z.string().transform((text) => text.trim()), temperature: z.number().default(0.5) }),
    });

    it('gives the Wrap phase the parsed context, after the Input phase', async () => {
      const registry = new MiddlewareRegistry();
      const seen: unknown[] = [];
      registry.add(Typed.Input, (context) => (seen.push(context), { ...context, prompt: `${context.prompt}  ` }));
      registry.add(Typed.Wrap, async function* observe(context, next) {
        seen.push(context);
        yield* next();
      });
      await registry.run(Typed, { prompt: ' hi' } as never, async function* terminal(context) {
        seen.push(context);
        yield context.prompt;
      });
      expect(seen).toEqual([{ prompt: ' hi' }, { prompt: 'hi', temperature: 0.5 }, { prompt: 'hi', temperature: 0.5 }]);
    });

    it('fails with ERR_CONTEXT_INVALID carrying the ZodError as cause, before any layer runs', async () => {
      let entered = false;
      const outcome = await consume(
        new MiddlewareRegistry().invoke(Typed, { prompt: 5 } as never, async function* terminal() {
          entered = true;
          yield 'x';
        }),
      );
      expect(fields(outcome.error)).toEqual({ code: 'ERR_CONTEXT_INVALID', stage: 'typed', phase: 'input', handler: undefined });
      expect((outcome.error as Error).cause).toBeInstanceOf(z.ZodError);
      expect((outcome.error as Error).message).toContain("failed the stage's context schema after the Input phase.");
      expect((outcome.error as Error).message).toContain('are in the cause; fix the caller');
      expect(entered).toBe(false);
    });
  });

  describe('result schema', () => {
    const Checked = createStage<Context, string>('checked', {
      result: z
        .string()
        .min(2)
        .transform((text) => `<${text}>`),
    });

    it('delivers the parsed value after the Output phase, holding events back', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(Checked.Output, (result) => result.replace(`${result.value}!`));
      const trace: string[] = [];
      const outcome = await consume(registry.invoke(Checked, { prompt: 'x' }, emitting(['ab', 'cd'], trace)), trace);
      expect(outcome).toEqual({ events: ['ab', '<cd!>'] });
      expect(trace).toEqual(['yield "ab"', 'yield "cd"', 'got "ab"', 'end', 'got "<cd!>"']);
    });

    it('fails with ERR_RESULT_INVALID carrying the ZodError as cause', async () => {
      const outcome = await consume(new MiddlewareRegistry().invoke(Checked, { prompt: 'x' }, emitting(['a'])));
      expect(outcome.events).toEqual([]);
      expect(fields(outcome.error)).toEqual({ code: 'ERR_RESULT_INVALID', stage: 'checked', phase: 'output', handler: undefined });
      expect((outcome.error as Error).cause).toBeInstanceOf(z.ZodError);
      expect((outcome.error as Error).message).toContain("failed the stage's result schema after the Output phase");
    });

    it('uses the asynchronous parse when the schema has one', async () => {
      const Async = createStage<Context, string>('async', {
        result: z.string().refine(async (text) => text !== 'forbidden', 'forbidden'),
      });
      await expect(new MiddlewareRegistry().run(Async, { prompt: 'x' }, emitting(['fine']))).resolves.toBe('fine');
      const outcome = await consume(new MiddlewareRegistry().invoke(Async, { prompt: 'x' }, emitting(['forbidden'])));
      expect(fields(outcome.error).code).toBe('ERR_RESULT_INVALID');
    });

    it('accepts a schema with safeParse only', async () => {
      const problems = ['too short'];
      const schema: Schema<string> = {
        safeParse: (value) =>
          typeof value === 'string' && value.length > 1
            ? { success: true, data: value.toUpperCase() }
            : { success: false, error: problems },
      };
      const Custom = createStage<Context, string>('custom', { result: schema });
      await expect(new MiddlewareRegistry().run(Custom, { prompt: 'x' }, emitting(['ok']))).resolves.toBe('OK');
      const outcome = await consume(new MiddlewareRegistry().invoke(Custom, { prompt: 'x' }, emitting(['k'])));
      expect((outcome.error as Error).cause).toBe(problems);
    });
  });
});
