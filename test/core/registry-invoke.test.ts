import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { caught, fields } from '../assertions';
import { ModelStage as Stage, OtherStage as Other, type PromptContext as Context } from '../fixtures';
import { reply, tracing } from './registry-fixtures';

describe('MiddlewareRegistry', () => {
  describe('invoke', () => {
    it('rejects a terminal that is not a function', () => {
      const error = caught(() => new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, null as never));
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'terminal', handler: 'terminal' });
      expect(error.message).toBe('[ERR_INVALID_HANDLER] The terminal of stage "model" must be a function, got null.');
    });

    it('rejects a stage copy with ERR_UNKNOWN_PHASE', () => {
      const error = caught(() => new MiddlewareRegistry().invoke({ ...Stage }, { prompt: 'x' }, reply));
      expect(fields(error)).toEqual({ code: 'ERR_UNKNOWN_PHASE', stage: undefined, phase: 'register', handler: undefined });
      expect(error.message).toContain('registry.invoke expects a stage from createStage()');
    });

    it('rejects a stage copy with ERR_UNKNOWN_PHASE after the stage itself has run', async () => {
      const registry = new MiddlewareRegistry();
      await registry.run(Stage, { prompt: 'x' }, reply);
      const error = caught(() => registry.invoke({ ...Stage }, { prompt: 'x' }, reply));
      expect(fields(error)).toEqual({ code: 'ERR_UNKNOWN_PHASE', stage: undefined, phase: 'register', handler: undefined });
    });

    it('rejects a terminal that is not a function after the stage has run', async () => {
      const registry = new MiddlewareRegistry();
      await registry.run(Stage, { prompt: 'x' }, reply);
      const error = caught(() => registry.invoke(Stage, { prompt: 'x' }, null as never));
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'terminal', handler: 'terminal' });
    });

    it('rejects a phase token in place of its stage with ERR_UNKNOWN_PHASE', () => {
      const error = caught(() => new MiddlewareRegistry().invoke(Stage.Wrap as unknown as typeof Stage, { prompt: 'x' }, reply));
      expect(fields(error)).toEqual({ code: 'ERR_UNKNOWN_PHASE', stage: 'model', phase: 'register', handler: undefined });
      expect(error.message).toBe(
        "[ERR_UNKNOWN_PHASE] registry.invoke expects a stage from createStage(), got its wrap phase token. Pass the stage itself (the token's `stage`).",
      );
    });

    it.each([
      ['options that are not an object', 'fast', 'options must be an object, got the string "fast"'],
      ['a signal that is not an AbortSignal', { signal: {} }, 'options.signal must be an AbortSignal, got a plain object'],
      ['a null signal', { signal: null }, 'options.signal must be an AbortSignal, got null'],
      ['a state without set', { state: { get: () => ({}) } }, 'options.state must be { get(), set(next) }, got a plain object'],
      ['a use that is not an array', { use: {} }, 'options.use must be an array of [target, handler, options?] tuples, got a plain object'],
    ])('rejects %s with ERR_INVALID_OPTIONS', (_label, options, problem) => {
      const error = caught(() => new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, reply, options as never));
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_OPTIONS', stage: 'model', phase: undefined, handler: undefined });
      expect(error.message).toBe(`[ERR_INVALID_OPTIONS] Invoke of stage "model": ${problem}.`);
    });

    it('rejects a per-invoke entry that is not a tuple', () => {
      const error = caught(() => new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, reply, { use: [{}] as never }));
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_OPTIONS', stage: 'model', phase: undefined, handler: undefined });
      expect(error.message).toContain('got an entry that is a plain object');
    });

    it('rejects a per-invoke handler for another stage', () => {
      const error = caught(() =>
        new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, reply, {
          use: [[Other.Input, (context: Context) => context, { name: 'stray' }]],
        }),
      );
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_OPTIONS', stage: 'model', phase: 'input', handler: 'stray' });
      expect(error.message).toContain('handler "stray" targets stage "other", but this invoke runs stage "model"');
    });

    it('validates per-invoke handlers like add does', () => {
      const error = caught(() => new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, reply, { use: [[Stage.Wrap, 3 as never]] }));
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'wrap', handler: 'anonymous wrap handler' });
    });

    it('runs nothing until the first pull', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Input, (context) => {
        trace.push('input');
        return context;
      });
      const events = registry.invoke(Stage, { prompt: 'x' }, reply);
      expect(trace).toEqual([]);
      await expect(events.next()).resolves.toEqual({ value: 'reply to x', done: false });
      expect(trace).toEqual(['input']);
    });

    it('fixes the handlers when invoke is called', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      const disposeFirst = registry.add(Stage.Wrap, tracing(trace, 'first'));
      const events = registry.invoke(Stage, { prompt: 'x' }, reply);
      disposeFirst();
      registry.add(Stage.Wrap, tracing(trace, 'late'));
      const seen: string[] = [];
      for await (const event of events) seen.push(event);
      expect(seen).toEqual(['reply to x']);
      expect(trace).toEqual(['first:enter', 'first:exit']);
      await registry.run(Stage, { prompt: 'y' }, reply);
      expect(trace).toEqual(['first:enter', 'first:exit', 'late:enter', 'late:exit']);
    });

    it('keeps a running invoke unaffected by changes made from inside it', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Wrap, async function* mutating(_context, next) {
        trace.push('mutating');
        registry.add(Stage.Wrap, tracing(trace, 'added'));
        yield* next();
      });
      await registry.run(Stage, { prompt: 'x' }, reply);
      expect(trace).toEqual(['mutating']);
    });
  });

  describe('run', () => {
    it('resolves with the last event', async () => {
      const registry = new MiddlewareRegistry();
      const result = await registry.run(Stage, { prompt: 'x' }, async function* terminal() {
        yield 'partial';
        yield 'final';
      });
      expect(result).toBe('final');
    });

    it('rejects with the error of the chain, unchanged', async () => {
      const failure = new Error('model down');
      const registry = new MiddlewareRegistry();
      const rejection = registry.run(Stage, { prompt: 'x' }, async function* terminal() {
        yield 'partial';
        throw failure;
      });
      await expect(rejection).rejects.toBe(failure);
    });
  });
});
