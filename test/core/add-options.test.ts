/**
 * `add` (MW-040): the options it rejects, with the problem its message names,
 * and the name a handler goes by.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, type AddOptions } from '../../src/core/index';
import { caught, fields } from '../assertions';
import { ModelStage as Stage, passThrough } from '../fixtures';

describe('MiddlewareRegistry.add', () => {
  describe('with invalid options', () => {
    it.each([
      ['an empty name', { name: '' }, 'options.name must be a non-empty string'],
      ['a name that is not a string', { name: 7 }, 'options.name must be a non-empty string'],
      ['an order that is not finite', { order: Number.NaN }, 'options.order must be a finite number'],
      ['an order that is not a number', { order: '1' }, 'options.order must be a finite number'],
      ['an empty id', { id: '' }, 'options.id must be a non-empty string'],
      ['an id that is not a string', { id: 7 }, 'options.id must be a non-empty string'],
      ['a before list with an empty id', { before: ['a', ''] }, 'options.before must be an array of ids (non-empty strings)'],
      ['an after list with an id that is not a string', { after: [7] }, 'options.after must be an array of ids (non-empty strings)'],
      ['a before that is not an array', { before: 'a' }, 'options.before must be an array of ids (non-empty strings)'],
    ])('throws ERR_INVALID_OPTIONS for %s and registers nothing', (_label, options, problem) => {
      const registry = new MiddlewareRegistry();
      const error = caught(() => registry.add(Stage.Wrap, passThrough, options as unknown as AddOptions));
      expect([fields(error), error.message.includes(problem), registry.describe(Stage)]).toEqual([
        { code: 'ERR_INVALID_OPTIONS', stage: 'model', phase: 'wrap', handler: 'passThrough' },
        true,
        [],
      ]);
    });
  });

  describe('the name of a handler', () => {
    const named = (name: PropertyDescriptor): ((...args: never[]) => unknown) =>
      Object.defineProperty(async function* handler() {}, 'name', name);

    it.each([
      ['an empty name', named({ value: '' })],
      ['a name that is not a string', named({ value: 7 })],
      [
        'a name getter that throws',
        named({
          get() {
            throw new Error('no name');
          },
        }),
      ],
    ])('is anonymous for a function with %s', (_label, handler) => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, handler as never);
      expect(registry.describe(Stage).map((entry) => entry.name)).toEqual(['anonymous wrap handler']);
    });

    it('is anonymous in the error for a handler that is an object with a name', () => {
      const error = caught(() => new MiddlewareRegistry().add(Stage.Input, { name: 'pretender' } as never));
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'input', handler: 'anonymous input handler' });
    });
  });
});
