import { describe, expect, it } from 'vitest';
import { MiddlewareResult } from '../../src/core/index';
import { anotherCopy } from '../copies';

interface Reply {
  text: string;
  tags: string[];
  usage: { tokens: number };
}

describe('MiddlewareResult', () => {
  describe('constructor', () => {
    it('holds the value and is frozen', () => {
      const value = { text: 'hi', tags: [], usage: { tokens: 1 } };
      const result = new MiddlewareResult<Reply>(value);
      expect(result.value).toBe(value);
      expect(Object.isFrozen(result)).toBe(true);
    });

    it('takes the value over: deep-frozen in place', () => {
      const value: Reply = { text: 'hi', tags: ['a'], usage: { tokens: 1 } };
      new MiddlewareResult(value);
      expect([Object.isFrozen(value), Object.isFrozen(value.tags), Object.isFrozen(value.usage)]).toEqual([true, true, true]);
      expect(() => value.tags.push('b')).toThrow(TypeError);
    });
  });

  describe('replace', () => {
    it('returns a new wrapper and leaves the original untouched', () => {
      const original = new MiddlewareResult('first');
      const replaced = original.replace('second');
      expect(replaced).not.toBe(original);
      expect([original.value, replaced.value]).toEqual(['first', 'second']);
      expect(MiddlewareResult.isInstance(replaced)).toBe(true);
    });
  });

  describe('update', () => {
    it('regression: freezes the whole original when it is wrapped, not only the branches a recipe left untouched', () => {
      const value: Reply = { text: 'hi', tags: ['a'], usage: { tokens: 3 } };
      const original = new MiddlewareResult(value);
      const frozenBefore = [Object.isFrozen(value), Object.isFrozen(value.tags), Object.isFrozen(value.usage)];
      const updated = original.update((draft) => {
        draft.tags.push('b');
      });
      expect({ frozenBefore, sharesUsage: updated.value.usage === value.usage, newTags: Object.isFrozen(updated.value.tags) }).toEqual({
        frozenBefore: [true, true, true],
        sharesUsage: true,
        newTags: true,
      });
    });

    it('applies a mutating recipe to a copy, sharing untouched branches', () => {
      const value: Reply = { text: 'hi', tags: ['a'], usage: { tokens: 3 } };
      const original = new MiddlewareResult(value);
      const updated = original.update((draft) => {
        draft.text = 'HI';
        draft.tags.push('b');
      });
      expect(updated.value).toEqual({ text: 'HI', tags: ['a', 'b'], usage: { tokens: 3 } });
      expect(original.value).toEqual({ text: 'hi', tags: ['a'], usage: { tokens: 3 } });
      expect(original.value).toBe(value);
      expect(updated.value.usage).toBe(value.usage);
      expect(Object.isFrozen(updated.value)).toBe(true);
    });

    it('uses a value the recipe returns as the replacement', () => {
      const original = new MiddlewareResult<Reply>({ text: 'hi', tags: [], usage: { tokens: 1 } });
      const updated = original.update(() => ({ text: 'new', tags: ['x'], usage: { tokens: 0 } }));
      expect(updated.value).toEqual({ text: 'new', tags: ['x'], usage: { tokens: 0 } });
      expect(original.value).toEqual({ text: 'hi', tags: [], usage: { tokens: 1 } });
    });

    it('returns a new wrapper even when the recipe changes nothing', () => {
      const original = new MiddlewareResult<Reply>({ text: 'hi', tags: [], usage: { tokens: 1 } });
      const updated = original.update(() => undefined);
      expect(updated).not.toBe(original);
      expect(updated.value).toBe(original.value);
    });
  });

  describe('isInstance', () => {
    it('accepts a result of another copy of the package, whose class is not this one', async () => {
      const other = await anotherCopy();
      const foreign = new other.MiddlewareResult(1);
      expect([foreign instanceof MiddlewareResult, MiddlewareResult.isInstance(foreign)]).toEqual([false, true]);
    });

    it('is accepted by a copy of the package loaded after it', async () => {
      const other = await anotherCopy();
      expect(other.MiddlewareResult.isInstance(new MiddlewareResult(1))).toBe(true);
    });

    it.each([
      ['a plain object with a value', { value: 1 }],
      ['an object carrying a marker property under a shared symbol', { [Symbol.for('staged-middleware.result')]: true, value: 1 }],
      ['an object whose prototype is MiddlewareResult.prototype', Object.create(MiddlewareResult.prototype) as unknown],
      ['null', null],
      ['a number', 3],
    ])('rejects %s', (_label, value) => {
      expect(MiddlewareResult.isInstance(value)).toBe(false);
    });
  });
});
