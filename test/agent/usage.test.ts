import { describe, expect, it } from 'vitest';
import { ZERO_USAGE, addUsage, type Usage } from '../../src/agent/index';
import { caught, fields } from '../assertions';

describe('addUsage', () => {
  describe('with two token counts', () => {
    it('adds them count by count into a new frozen usage', () => {
      const total = addUsage({ inputTokens: 10, outputTokens: 5, totalTokens: 15 }, { inputTokens: 20, outputTokens: 3, totalTokens: 23 });
      expect({ total, frozen: Object.isFrozen(total) }).toEqual({
        total: { inputTokens: 30, outputTokens: 8, totalTokens: 38 },
        frozen: true,
      });
    });

    it('starts a sum from ZERO_USAGE, a frozen usage of zeros', () => {
      const one = { inputTokens: 1, outputTokens: 2, totalTokens: 3 };
      expect({ sum: addUsage(ZERO_USAGE, one), zero: ZERO_USAGE, frozen: Object.isFrozen(ZERO_USAGE) }).toEqual({
        sum: one,
        zero: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        frozen: true,
      });
    });
  });

  describe('with counts that are not three finite numbers', () => {
    it.each([
      ['more', ZERO_USAGE, null, 'more must be { inputTokens, outputTokens, totalTokens } (finite numbers), got null'],
      ['more', ZERO_USAGE, { inputTokens: 1, outputTokens: Number.NaN, totalTokens: 1 }, 'more must be'],
      ['total', { inputTokens: 1, outputTokens: 1 }, ZERO_USAGE, 'total must be'],
      ['total', { inputTokens: '1', outputTokens: 1, totalTokens: 1 }, ZERO_USAGE, 'total must be'],
    ])('throws ERR_INVALID_OPTIONS naming %s', (_name, total, more, text) => {
      const error = caught(() => addUsage(total as Usage, more as Usage));
      expect({ ...fields(error), names: error.message.includes(`addUsage(total, more): ${text}`) }).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'invokeModel',
        phase: undefined,
        handler: undefined,
        names: true,
      });
    });
  });
});
