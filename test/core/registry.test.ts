import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { caught, fields } from '../assertions';
import { ModelStage as Stage, OtherStage as Other, type PromptContext as Context } from '../fixtures';
import { reply, shape, tracing } from './registry-fixtures';

describe('MiddlewareRegistry', () => {
  describe('add', () => {
    it('registers on each phase token, and a bare stage means Wrap', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Input, function addSuffix(context) {
        trace.push('input');
        return { prompt: `${context.prompt}!` };
      });
      registry.add(Stage.Output, function shout(result) {
        trace.push('output');
        return result.replace(result.value.toUpperCase());
      });
      registry.add(Stage.Wrap, tracing(trace, 'token'), { name: 'viaToken' });
      registry.add(Stage, tracing(trace, 'bare'), { name: 'viaStage' });
      expect(shape(registry)).toEqual(['input:addSuffix', 'output:shout', 'wrap:viaToken', 'wrap:viaStage']);
      await expect(registry.run(Stage, { prompt: 'hi' }, reply)).resolves.toBe('REPLY TO HI!');
      expect(trace).toEqual(['input', 'token:enter', 'bare:enter', 'bare:exit', 'token:exit', 'output']);
    });

    it('names a handler by its function name, else by its phase', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Input, (context) => context);
      registry.add(Stage.Input, function named(context) {
        return context;
      });
      registry.add(Stage.Input, (context) => context, { name: 'given' });
      expect(shape(registry)).toEqual(['input:anonymous input handler', 'input:named', 'input:given']);
    });

    it('names a handler by its phase when reading its function name throws or gives no string', () => {
      const registry = new MiddlewareRegistry();
      const throwing = Object.defineProperty((context: Context) => context, 'name', {
        get() {
          throw new Error('name getter');
        },
      });
      const numbered = Object.defineProperty((context: Context) => context, 'name', { value: 7 });
      registry.add(Stage.Input, throwing);
      registry.add(Stage.Input, numbered);
      expect(shape(registry)).toEqual(['input:anonymous input handler', 'input:anonymous input handler']);
    });

    it('keeps registrations of different stages apart', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Other, tracing([], 'x'), { name: 'onOther' });
      expect([shape(registry), shape(registry, Other)]).toEqual([[], ['wrap:onOther']]);
    });

    describe('with a bad target', () => {
      it.each([
        [
          'a spread copy of a stage',
          { ...Stage },
          'got a plain object. It looks like a stage or phase token but was not created by createStage',
        ],
        ['a hand-made phase token', { phase: 'wrap', stage: Stage }, 'got a plain object. It looks like a stage or phase token'],
        ['a string', 'model', 'got the string "model".'],
        ['undefined', undefined, 'got undefined.'],
      ])('rejects %s with ERR_UNKNOWN_PHASE', (_label, target, detail) => {
        const registry = new MiddlewareRegistry();
        const error = caught(() => registry.add(target as never, (() => undefined) as never));
        expect(fields(error)).toEqual({ code: 'ERR_UNKNOWN_PHASE', stage: undefined, phase: 'register', handler: undefined });
        expect(error.message).toContain('registry.add expects a stage from createStage() or one of its phase tokens');
        expect(error.message).toContain(detail);
      });
    });

    describe('with a handler that is not a function', () => {
      it('throws ERR_INVALID_HANDLER naming the stage, phase and handler', () => {
        const registry = new MiddlewareRegistry();
        const error = caught(() => registry.add(Stage.Output, 'shout' as never, { name: 'shout' }));
        expect(fields(error)).toEqual({ code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'output', handler: 'shout' });
        expect(error.message).toBe(
          '[ERR_INVALID_HANDLER] Output handler "shout" of stage "model" must be a function, got the string "shout".',
        );
        expect(shape(registry)).toEqual([]);
      });
    });

    describe('with bad options', () => {
      it.each([
        ['options that are not an object', 5, 'options must be an object, got number 5'],
        ['an empty name', { name: '' }, 'options.name must be a non-empty string'],
        ['a non-finite order', { order: Number.NaN }, 'options.order must be a finite number, got number NaN'],
        ['a string order', { order: '1' }, 'options.order must be a finite number, got the string "1"'],
        ['an empty id', { id: '' }, 'options.id must be a non-empty string'],
        ['a before that is not an array', { before: 'x' }, 'options.before must be an array of ids (non-empty strings)'],
        ['an after with an empty id', { after: [''] }, 'options.after must be an array of ids (non-empty strings)'],
        ['an unknown next policy', { next: 'twice' }, `options.next must be 'many', 'once' or 'at-most-once', got the string "twice"`],
        ['a non-boolean replace', { id: 'x', replace: 'yes' }, 'options.replace must be a boolean'],
      ])('rejects %s with ERR_INVALID_OPTIONS', (_label, options, problem) => {
        const registry = new MiddlewareRegistry();
        const error = caught(() => registry.add(Stage.Wrap, async function* guarded() {}, options as never));
        expect(fields(error)).toEqual({ code: 'ERR_INVALID_OPTIONS', stage: 'model', phase: 'wrap', handler: 'guarded' });
        expect(error.message).toBe(`[ERR_INVALID_OPTIONS] registry.add: ${problem} (wrap handler "guarded" of stage "model").`);
        expect(shape(registry)).toEqual([]);
      });

      it('rejects a next policy on an Input handler', () => {
        const registry = new MiddlewareRegistry();
        const error = caught(() => registry.add(Stage.Input, (context) => context, { name: 'early', next: 'once' }));
        expect(fields(error)).toEqual({ code: 'ERR_INVALID_OPTIONS', stage: 'model', phase: 'input', handler: 'early' });
        expect(error.message).toContain('options.next applies to Wrap handlers only');
      });

      it("accepts next: 'many' on an Output handler, the default", () => {
        const registry = new MiddlewareRegistry();
        registry.add(Stage.Output, (result) => result, { name: 'keep', next: 'many' });
        expect(shape(registry)).toEqual(['output:keep']);
      });
    });
  });

  describe('the disposer', () => {
    it('removes exactly its registration, and a second call is harmless', () => {
      const registry = new MiddlewareRegistry();
      const handler = tracing([], 'same');
      const dispose = registry.add(Stage.Wrap, handler, { name: 'first' });
      registry.add(Stage.Wrap, handler, { name: 'second' });
      dispose();
      expect(shape(registry)).toEqual(['wrap:second']);
      dispose();
      expect(shape(registry)).toEqual(['wrap:second']);
    });

    it('frees the id it held', () => {
      const registry = new MiddlewareRegistry();
      const dispose = registry.add(Stage.Wrap, tracing([], 'a'), { id: 'a' });
      dispose();
      registry.add(Stage.Wrap, tracing([], 'b'), { id: 'a', name: 'again' });
      expect(shape(registry)).toEqual(['wrap:again']);
    });
  });

  describe('remove', () => {
    describe('by target and handler', () => {
      it('removes only the first matching registration and reports it', () => {
        const registry = new MiddlewareRegistry();
        const handler = tracing([], 'same');
        registry.add(Stage.Wrap, handler, { name: 'first' });
        registry.add(Stage.Wrap, handler, { name: 'second', order: -1 });
        registry.add(Stage.Wrap, tracing([], 'other'), { name: 'other' });
        expect(registry.remove(Stage.Wrap, handler)).toBe(true);
        // "first" was registered first, although "second" runs outside it.
        expect(shape(registry)).toEqual(['wrap:second', 'wrap:other']);
      });

      it('removes the earliest registration of the handler after a replace took an earlier place', () => {
        const registry = new MiddlewareRegistry();
        const handler = tracing([], 'same');
        registry.add(Stage.Wrap, tracing([], 'old'), { name: 'old', id: 'x' });
        registry.add(Stage.Wrap, handler, { name: 'first' });
        registry.add(Stage.Wrap, handler, { name: 'replacement', id: 'x', replace: true });
        // The replacement took the place (and sequence number) of "old", before "first".
        expect(shape(registry)).toEqual(['wrap:replacement', 'wrap:first']);
        expect(registry.remove(Stage.Wrap, handler)).toBe(true);
        expect([shape(registry), registry.remove('x')]).toEqual([['wrap:first'], false]);
      });

      it('treats a bare stage as Wrap and matches phase and handler', () => {
        const registry = new MiddlewareRegistry();
        const handler = tracing([], 'w');
        registry.add(Stage.Wrap, handler, { name: 'w' });
        expect(registry.remove(Stage.Output, handler as never)).toBe(false);
        expect(registry.remove(Other, handler)).toBe(false);
        expect(registry.remove(Stage, tracing([], 'w'))).toBe(false);
        expect(registry.remove(Stage, handler)).toBe(true);
        expect(registry.remove(Stage, handler)).toBe(false);
        expect(shape(registry)).toEqual([]);
      });

      it('rejects a target that is not a stage', () => {
        const error = caught(() => new MiddlewareRegistry().remove({ phase: 'wrap' } as never, (() => undefined) as never));
        expect(error.code).toBe('ERR_UNKNOWN_PHASE');
        expect(error.message).toContain('registry.remove expects a stage');
      });
    });

    describe('by id', () => {
      it('removes the registration with that id and reports whether there was one', () => {
        const registry = new MiddlewareRegistry();
        registry.add(Stage.Input, (context) => context, { id: 'keep', name: 'keep' });
        registry.add(Stage.Output, (result) => result, { id: 'drop', name: 'drop' });
        expect([registry.remove('drop'), registry.remove('drop'), registry.remove('never')]).toEqual([true, false, false]);
        expect(shape(registry)).toEqual(['input:keep']);
      });
    });
  });
});
