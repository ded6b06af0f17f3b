import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, type InvokeOptions } from '../../src/core/index';
import { fields } from '../assertions';
import { ModelStage as Stage, echo as terminal } from '../fixtures';

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('MiddlewareRegistry.invoke', () => {
  describe('options.state of the wrong shape', () => {
    it.each<[string, unknown, string]>([
      ['null', null, 'null'],
      ['a number', 5, 'number 5'],
      ['a function carrying get and set', Object.assign(() => undefined, { get: () => ({}), set: () => undefined }), 'a function'],
      ['an object without get', { set: () => undefined }, 'a plain object'],
      ['an object without set', { get: () => ({}) }, 'a plain object'],
    ])('throws ERR_INVALID_OPTIONS naming the stage, for %s', (_label, state, described) => {
      const error = thrownBy(() =>
        new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, terminal, { state } as unknown as InvokeOptions),
      );
      expect({ ...fields(error), message: (error as Error).message }).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'model',
        phase: undefined,
        handler: undefined,
        message: `[ERR_INVALID_OPTIONS] Invoke of stage "model": options.state must be { get(), set(next) }, got ${described}.`,
      });
    });
  });

  describe('an entry of options.use that add() would reject', () => {
    it('throws the error of add(), naming options.use as the call', () => {
      const options = { use: [[Stage.Wrap, terminal, { name: '' }]] } as unknown as InvokeOptions;
      const error = thrownBy(() => new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, terminal, options));
      expect((error as Error).message).toBe(
        '[ERR_INVALID_OPTIONS] invoke options.use: options.name must be a non-empty string (wrap handler "terminal" of stage "model").',
      );
    });
  });
});
