import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createStage, MiddlewareRegistry } from '../../src/core/index';
import { failure, fields } from '../assertions';

describe('MiddlewareRegistry.run', () => {
  describe('a context with a value property, through the Input phase', () => {
    it('leaves the context as it is: only an Output result is taken over', async () => {
      const stage = createStage<{ value: { count: number } }, number>('counting');
      const registry = new MiddlewareRegistry();
      registry.add(stage.Input, function bump(context) {
        context.value.count++;
        return context;
      });
      const context = { value: { count: 1 } };
      const result = await registry.run(stage, context, async function* terminal(given) {
        yield given.value.count;
      });
      expect({ result, frozen: Object.isFrozen(context.value) }).toEqual({ result: 2, frozen: false });
    });
  });

  describe('Input and Output handlers that each answer with a promise, one after another', () => {
    it('hands the next handler, the terminal and the caller what the promises resolved to', async () => {
      const stage = createStage<{ words: string[] }, string>('spelled');
      const registry = new MiddlewareRegistry();
      registry.add(stage.Input, async function first(context) {
        return { words: [...context.words, 'one'] };
      });
      registry.add(stage.Input, async function second(context) {
        return { words: [...context.words, 'two'] };
      });
      registry.add(stage.Output, async function upper(result) {
        return result.replace(result.value.toUpperCase());
      });
      registry.add(stage.Output, async function exclaim(result) {
        return result.replace(`${result.value}!`);
      });
      const result = await registry.run(stage, { words: ['zero'] }, async function* terminal(given) {
        yield given.words.join(' ');
      });
      expect(result).toBe('ZERO ONE TWO!');
    });
  });

  describe('a context that fails the context schema', () => {
    it('fails with ERR_CONTEXT_INVALID naming the context schema', async () => {
      const stage = createStage<{ topic: string }, string>('checked', { context: z.object({ topic: z.string().min(5) }) });
      const error = await failure(
        new MiddlewareRegistry().run(stage, { topic: 'x' }, async function* terminal() {
          yield 'never';
        }),
      );
      expect({ ...fields(error), message: (error as Error).message }).toEqual({
        code: 'ERR_CONTEXT_INVALID',
        stage: 'checked',
        phase: 'input',
        handler: undefined,
        message:
          "[ERR_CONTEXT_INVALID] The context of stage \"checked\" failed the stage's context schema after the Input phase. The schema's issues are in the cause; fix the caller's context or the Input handler that produced it.",
      });
    });
  });

  describe('a result that fails the result schema', () => {
    it('fails with ERR_RESULT_INVALID naming the result schema', async () => {
      const stage = createStage<{ topic: string }, string>('checked', { result: z.string().min(5) });
      const error = await failure(
        new MiddlewareRegistry().run(stage, { topic: 'x' }, async function* terminal() {
          yield 'tiny';
        }),
      );
      expect({ ...fields(error), message: (error as Error).message }).toEqual({
        code: 'ERR_RESULT_INVALID',
        stage: 'checked',
        phase: 'output',
        handler: undefined,
        message:
          '[ERR_RESULT_INVALID] The result of stage "checked" failed the stage\'s result schema after the Output phase. The schema\'s issues are in the cause; fix the terminal or the Output handler that produced it.',
      });
    });
  });
});
