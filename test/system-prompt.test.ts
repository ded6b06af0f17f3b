import { describe, expect, it } from 'vitest';
import { isSystemTextBlock, splitSystemPrompt, toSystemBlocks, type SystemContentBlock } from '../src/core/index';

describe('toSystemBlocks', () => {
  it('turns a string into one text block', () => {
    expect(toSystemBlocks('Be terse.')).toEqual([{ text: 'Be terse.' }]);
  });

  it('returns the block it makes of a string frozen, so no caller can change it', () => {
    const blocks = toSystemBlocks('Be terse.');
    expect([Object.isFrozen(blocks), Object.isFrozen(blocks[0])]).toEqual([true, true]);
  });

  it('returns a block array as the same array', () => {
    const blocks: SystemContentBlock[] = [{ text: 'a' }, { cachePoint: { type: 'default' } }];
    expect(toSystemBlocks(blocks)).toBe(blocks);
  });
});

describe('isSystemTextBlock', () => {
  it.each([
    [{ text: 'x' }, true],
    [{ text: '' }, true],
    [{ cachePoint: { type: 'default' } }, false],
    [{ text: 3 }, false],
    [{ image: 'png' }, false],
  ])('classifies %j as %s', (block, expected) => {
    expect(isSystemTextBlock(block as SystemContentBlock)).toBe(expected);
  });
});

describe('splitSystemPrompt', () => {
  describe('with a string', () => {
    it('gives the string as text and one block', () => {
      expect(splitSystemPrompt('You are terse.')).toEqual({ text: 'You are terse.', blocks: [{ text: 'You are terse.' }] });
    });
  });

  describe('with blocks and cache points', () => {
    it('joins the text blocks with a newline and keeps every block in order', () => {
      const blocks: SystemContentBlock[] = [
        { text: 'You are terse.' },
        { cachePoint: { type: 'default' } },
        { document: 'spec' },
        { text: 'Today is Monday.' },
      ];
      const split = splitSystemPrompt(blocks);
      expect(split).toEqual({ text: 'You are terse.\nToday is Monday.', blocks });
      expect([split.blocks, Object.isFrozen(split)]).toEqual([blocks, true]);
      expect(split.blocks).toBe(blocks);
    });
  });

  describe('with no text blocks', () => {
    it('gives empty text', () => {
      expect(splitSystemPrompt([{ cachePoint: { type: 'default' } }])).toEqual({ text: '', blocks: [{ cachePoint: { type: 'default' } }] });
    });
  });
});
