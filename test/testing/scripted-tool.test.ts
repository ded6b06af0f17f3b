import { describe, expect, it } from 'vitest';
import { createInterrupt, type ToolRunContext } from '../../src/agent/index';
import { ScriptedTool } from '../../src/testing/index';

const never = new AbortController().signal;

const toolContext = (overrides: Partial<ToolRunContext> = {}): ToolRunContext => ({
  toolUse: { type: 'toolUse', toolUseId: 't1', name: 'x', input: {} },
  signal: never,
  invocationState: {},
  interrupt: createInterrupt('executeTool', 't1', new Map()),
  ...overrides,
});

describe('ScriptedTool', () => {
  describe('run', () => {
    it('answers with its outcomes in order, repeating the last, and records calls', async () => {
      const failure = new Error('no');
      const tool = new ScriptedTool({ name: 'f', outcomes: [{ value: 1 }, { error: failure }] });
      expect(await tool.run('a', toolContext())).toEqual(1);
      await expect(tool.run('b', toolContext())).rejects.toBe(failure);
      await expect(tool.run('c', toolContext())).rejects.toBe(failure);
      expect(tool.calls.map((call) => [call.input, call.toolUseId])).toEqual([
        ['a', 't1'],
        ['b', 't1'],
        ['c', 't1'],
      ]);
    });

    it('answers ok by default and describes itself', async () => {
      const tool = new ScriptedTool({ name: 'f' });
      expect(await tool.run({}, toolContext())).toEqual('ok');
      expect(tool.spec).toEqual({ name: 'f', description: 'Scripted tool f.', inputSchema: { type: 'object' } });
    });

    it('calls respond with the input and context', async () => {
      const tool = new ScriptedTool({
        name: 'f',
        description: 'd',
        inputSchema: { type: 'string' },
        respond: (input, context) => `${String(input)}:${context.toolUse.toolUseId}`,
      });
      expect(await tool.run('x', toolContext())).toEqual('x:t1');
    });
  });

  describe('constructor', () => {
    it.each<[string, unknown, string]>([
      ['no options', undefined, 'options.name'],
      ['an empty name', { name: '' }, 'options.name'],
      ['a respond that is not a function', { name: 'f', respond: 'ok' }, 'options.respond'],
      ['outcomes that are not an array', { name: 'f', outcomes: { value: 1 } }, 'options.outcomes'],
    ])('rejects %s with ERR_INVALID_OPTIONS', (_label, options, problem) => {
      expect(() => new ScriptedTool(options as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'executeTool', message: expect.stringContaining(problem) }),
      );
    });
  });
});
