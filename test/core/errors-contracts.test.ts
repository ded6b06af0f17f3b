import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, MiddlewareResult } from '../../src/core/index';
import { failure, fields } from '../assertions';
import { anotherCopy } from '../copies';
import { ModelStage as Stage, echo } from '../fixtures';

describe('MiddlewareRegistry.invoke', () => {
  describe('contract errors', () => {
    it.each([
      [
        'a plain async function',
        async () => 'value',
        'returned a promise, not an async iterable. It looks like a plain async function: write it as `async function*`',
      ],
      [
        'an array',
        () => ['a'],
        'returned an array of length 1, not an async iterable. A synchronous iterable (an array or a `function*` generator) cannot stream',
      ],
      [
        'a sync generator',
        function* sync() {
          yield 'a';
        },
        'returned a synchronous iterator (a `function*` generator?), not an async iterable. A synchronous iterable (an array or a `function*` generator) cannot stream: write it as `async function*`.',
      ],
      [
        'undefined',
        () => undefined,
        'returned undefined, not an async iterable. Write it as `async function*` and forward the inner events with `yield* next()`.',
      ],
    ])('reject a Wrap handler returning %s with ERR_INVALID_HANDLER and a hint', async (_label, handler, text) => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, handler as never, { name: 'wrong' });
      const error = await failure(registry.run(Stage, { prompt: 'x' }, echo));
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'wrap', handler: 'wrong' });
      expect((error as Error).message).toContain(`Wrap handler "wrong" of stage "model" ${text}`);
    });

    it('rejects an inner Wrap handler returning a non-iterable when next() is called', async () => {
      const registry = new MiddlewareRegistry();
      let thrownAtNext: unknown;
      registry.add(Stage.Wrap, async function* outer(_context, next) {
        try {
          next();
        } catch (error) {
          thrownAtNext = error;
        }
        yield 'recovered';
      });
      registry.add(Stage.Wrap, (() => 42) as never, { name: 'numeric' });
      await expect(registry.run(Stage, { prompt: 'x' }, echo)).resolves.toBe('recovered');
      expect(fields(thrownAtNext)).toEqual({ code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'wrap', handler: 'numeric' });
    });

    it.each([
      ['null', 'Wrap handler', null],
      ['undefined', 'terminal', undefined],
      ['null', 'terminal', null],
    ])('reject a %s returned by a %s with ERR_INVALID_HANDLER', async (got, which, produced) => {
      const registry = new MiddlewareRegistry();
      if (which === 'Wrap handler') registry.add(Stage.Wrap, (() => produced) as never, { name: 'wrong' });
      const error = await failure(registry.run(Stage, { prompt: 'x' }, which === 'terminal' ? ((() => produced) as never) : echo));
      expect(fields(error)).toEqual(
        which === 'terminal'
          ? { code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'terminal', handler: 'terminal' }
          : { code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'wrap', handler: 'wrong' },
      );
      expect((error as Error).message).toContain(`returned ${got}, not an async iterable.`);
    });

    it('rejects a terminal returning a non-iterable with ERR_INVALID_HANDLER', async () => {
      const error = await failure(new MiddlewareRegistry().run(Stage, { prompt: 'x' }, (async () => 'text') as never));
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'terminal', handler: 'terminal' });
      expect((error as Error).message).toContain(
        'The terminal of stage "model" returned a promise, not an async iterable. It looks like a plain async function: write it as `async function*` and yield its events.',
      );
    });

    it.each([
      ['undefined', () => undefined, 'undefined'],
      ['null', () => null, 'null'],
      ['a promise of undefined', async () => undefined, 'undefined'],
    ])('reject an Input handler returning %s with ERR_INPUT_CONTRACT', async (_label, handler, got) => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Input, handler as never, { name: 'forgetful' });
      const error = await failure(registry.run(Stage, { prompt: 'x' }, echo));
      expect(fields(error)).toEqual({ code: 'ERR_INPUT_CONTRACT', stage: 'model', phase: 'input', handler: 'forgetful' });
      expect((error as Error).message).toBe(
        `[ERR_INPUT_CONTRACT] Input handler "forgetful" of stage "model" returned ${got}. An Input handler must return the context (the one it received, or a new one). Did you forget to \`return context\`?`,
      );
    });

    it.each([
      ['a raw value', () => 'raw', 'the string "raw"'],
      ['a promise of a raw value', async () => 'raw', 'the string "raw"'],
      ['undefined', () => undefined, 'undefined'],
      ['a lookalike object', () => ({ value: 'x' }), 'a plain object'],
    ])('reject an Output handler returning %s with ERR_OUTPUT_CONTRACT', async (_label, handler, got) => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Output, handler as never, { name: 'sloppy' });
      const error = await failure(registry.run(Stage, { prompt: 'x' }, echo));
      expect(fields(error)).toEqual({ code: 'ERR_OUTPUT_CONTRACT', stage: 'model', phase: 'output', handler: 'sloppy' });
      expect((error as Error).message).toBe(
        `[ERR_OUTPUT_CONTRACT] Output handler "sloppy" of stage "model" returned ${got}, not a MiddlewareResult. Return the result it received, or \`result.replace(value)\` / \`result.update(recipe)\`.`,
      );
    });

    it('accepts a MiddlewareResult of another copy of the package', async () => {
      const other = await anotherCopy();
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Output, () => new other.MiddlewareResult('foreign'));
      await expect(registry.run(Stage, { prompt: 'x' }, echo)).resolves.toBe('foreign');
    });

    it('rejects a lookalike result carrying a marker property with ERR_OUTPUT_CONTRACT', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Output, function forger() {
        return { [Symbol.for('staged-middleware.result')]: true, value: 'forged' } as unknown as MiddlewareResult<string>;
      });
      expect(fields(await failure(registry.run(Stage, { prompt: 'x' }, echo)))).toEqual({
        code: 'ERR_OUTPUT_CONTRACT',
        stage: 'model',
        phase: 'output',
        handler: 'forger',
      });
    });

    it('passes on a context with a non-function then property as it is', async () => {
      const registry = new MiddlewareRegistry();
      const odd = { prompt: 'odd', then: 'not callable' };
      let seen: unknown;
      registry.add(Stage.Input, () => odd);
      await registry.run(Stage, { prompt: 'x' }, async function* terminal(context) {
        seen = context;
        yield context.prompt;
      });
      expect(seen).toBe(odd);
    });
  });
});
