import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { anotherCopy } from '../copies';

describe('MiddlewareError', () => {
  describe('constructor', () => {
    it('prefixes the message with the code and keeps every field', () => {
      const cause = new Error('root');
      const error = new MiddlewareError({
        code: 'ERR_NO_RESULT',
        message: 'nothing came out.',
        stage: 'model',
        phase: 'wrap',
        handler: 'retry',
        cause,
      });
      expect({
        name: error.name,
        message: error.message,
        code: error.code,
        stage: error.stage,
        phase: error.phase,
        handler: error.handler,
      }).toEqual({
        name: 'MiddlewareError',
        message: '[ERR_NO_RESULT] nothing came out.',
        code: 'ERR_NO_RESULT',
        stage: 'model',
        phase: 'wrap',
        handler: 'retry',
      });
      expect(error.cause).toBe(cause);
      expect(error).toBeInstanceOf(Error);
    });

    it('sets no cause when none is given', () => {
      const error = new MiddlewareError({ code: 'ERR_ABORTED', message: 'stopped.' });
      expect('cause' in error).toBe(false);
      expect([error.stage, error.phase, error.handler]).toEqual([undefined, undefined, undefined]);
    });

    it('keeps an explicitly undefined cause', () => {
      const error = new MiddlewareError({ code: 'ERR_ABORTED', message: 'stopped.', cause: undefined });
      expect('cause' in error).toBe(true);
      expect(error.cause).toBeUndefined();
    });
  });

  describe('isInstance', () => {
    it('accepts errors of this copy', () => {
      expect(MiddlewareError.isInstance(new MiddlewareError({ code: 'ERR_TIMEOUT', message: 'late.' }))).toBe(true);
    });

    it('accepts an error of another copy of the package, whose class is not this one', async () => {
      const other = await anotherCopy();
      const foreign = new other.MiddlewareError({ code: 'ERR_TIMEOUT', message: 'late.' });
      expect([foreign instanceof MiddlewareError, MiddlewareError.isInstance(foreign)]).toEqual([false, true]);
    });

    it.each([
      ['a plain Error', new Error('x')],
      ['a lookalike with the same fields', Object.assign(new Error('x'), { name: 'MiddlewareError', code: 'ERR_TIMEOUT' })],
      ['an object carrying a marker property under a shared symbol', { [Symbol.for('staged-middleware.error')]: true }],
      ['an object carrying a marker property under a local symbol', { [Symbol('staged-middleware.error')]: true }],
      ['an object whose prototype is MiddlewareError.prototype', Object.create(MiddlewareError.prototype) as unknown],
      ['null', null],
      ['a string', 'ERR_TIMEOUT'],
    ])('rejects %s', (_label, value) => {
      expect(MiddlewareError.isInstance(value)).toBe(false);
    });
  });
});
