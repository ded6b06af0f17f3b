import { describe, expect, it } from 'vitest';
import { namedToolResult, type ToolResultBlock } from '../../src/agent/index';
import { caught, fields } from '../assertions';

const nameless = {
  type: 'toolResult',
  toolUseId: 't1',
  status: 'error',
  content: [{ type: 'text', text: 'Not allowed.' }],
} as unknown as ToolResultBlock;

describe('namedToolResult', () => {
  describe('with a result without a name', () => {
    it('returns a frozen copy named after the tool use, leaving the result as it was', () => {
      const named = namedToolResult(nameless, { name: 'rm' });
      expect({ named, frozen: Object.isFrozen(named), original: 'name' in nameless }).toEqual({
        named: { ...nameless, name: 'rm' },
        frozen: true,
        original: false,
      });
    });
  });

  describe('with a result that has a name', () => {
    it('returns the result itself, even when the tool use names another tool', () => {
      const result: ToolResultBlock = { ...nameless, name: 'ls' };
      expect(namedToolResult(result, { name: 'rm' })).toBe(result);
    });
  });

  describe('with what is not a result or a tool use', () => {
    it.each([
      ['a tool use without a name', nameless, { toolUseId: 't1' }, 'toolUse must be the tool use answered, with a string name, got'],
      ['no result', undefined, { name: 'rm' }, 'toolResult must be a toolResult block, got undefined'],
    ])('throws ERR_INVALID_OPTIONS for %s', (_case, result, toolUse, text) => {
      const error = caught(() => namedToolResult(result as ToolResultBlock, toolUse as { name: string }));
      expect({ ...fields(error), says: error.message.includes(`namedToolResult(toolResult, toolUse): ${text}`) }).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'executeTool',
        phase: undefined,
        handler: undefined,
        says: true,
      });
    });
  });
});
