import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, MiddlewareError } from '../../src/core/index';
import {
  callTools,
  ExecuteToolStage,
  type ToolCallParts,
  type ToolResultBlock,
  type ToolUseBlock,
  type Usage,
} from '../../src/agent/index';
import { ScriptedTool } from '../../src/testing/index';
import { caught, drain, fields } from '../assertions';

const use = (name: string, toolUseId: string): ToolUseBlock => ({ type: 'toolUse', toolUseId, name, input: {} });
const success = (name: string, toolUseId: string, text: string): ToolResultBlock => ({
  type: 'toolResult',
  toolUseId,
  name,
  status: 'success',
  content: [{ type: 'text', text }],
});
const toolUses = [use('ls', 'l1'), use('rm', 'r1'), use('cat', 'c1')];
const question = { id: 'executeTool:r1:approve', name: 'approve' };

/** ls and cat answer; rm asks for approval, and answers with what it was told. */
function tools(): ScriptedTool[] {
  return [
    new ScriptedTool({ name: 'ls', outcomes: [{ value: 'a.txt' }] }),
    new ScriptedTool({ name: 'rm', respond: (_input, context) => String(context.interrupt({ name: 'approve' }).response) }),
    new ScriptedTool({ name: 'cat', outcomes: [{ value: 'text' }] }),
  ];
}

describe('callTools', () => {
  describe('with a tool use in the middle that asks a question nobody answered', () => {
    it('runs the calls after it, yields the question as it is raised, and returns the results found and the question', async () => {
      const registry = new MiddlewareRegistry();
      const seen: string[] = [];
      registry.add(ExecuteToolStage.Input, (context) => (seen.push(context.toolUse.toolUseId), context));
      const { events, value } = await drain(callTools(registry, { toolUses, tools: tools(), invocationState: {} }));
      expect({ events: events.map((event) => event.type), value, seen, frozen: Object.isFrozen(value) }).toEqual({
        events: ['toolResult', 'interrupt', 'toolResult'],
        value: { results: [success('ls', 'l1', 'a.txt'), success('cat', 'c1', 'text')], interrupts: [question] },
        seen: ['l1', 'r1', 'c1'],
        frozen: true,
      });
    });
  });

  describe('resuming that turn with its results and the answer', () => {
    it('runs only the tool use without a result and returns every result in tool-use order', async () => {
      const given = [success('ls', 'l1', 'a.txt'), success('cat', 'c1', 'text')];
      const parts = { toolUses, tools: tools(), invocationState: {}, results: given, responses: { [question.id]: 'yes' } };
      const { events, value } = await drain(callTools(new MiddlewareRegistry(), parts));
      expect({ events: events.map((event) => event.type), value }).toEqual({
        events: ['toolResult'],
        value: { results: [given[0], success('rm', 'r1', 'yes'), given[1]], interrupts: [] },
      });
    });
  });

  describe('with a handler result without a name, a tool it does not have and results that ask to end the run', () => {
    it('names the result, answers the unknown tool with an error result, and returns the first terminating tool use', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, async function* namelessForLs(context, next) {
        if (context.toolUse.name !== 'ls') return yield* next(context);
        const nameless = { type: 'toolResult', toolUseId: context.toolUse.toolUseId, status: 'success', content: [] };
        yield { type: 'toolResult', toolResult: nameless as unknown as ToolResultBlock, terminate: true };
      });
      registry.add(ExecuteToolStage.Output, (result) =>
        result.value.toolResult.toolUseId === 'c1' ? result.update((draft) => void (draft.terminate = true)) : result,
      );
      const parts: ToolCallParts = {
        toolUses: [use('ghost', 'g1'), use('cat', 'c1'), use('ls', 'l1')],
        tools: tools(),
        invocationState: {},
      };
      const { value } = await drain(callTools(registry, parts));
      expect(value).toEqual({
        results: [
          {
            type: 'toolResult',
            toolUseId: 'g1',
            name: 'ghost',
            status: 'error',
            content: [{ type: 'text', text: 'Unknown tool "ghost": the agent has no tool by that name.' }],
          },
          success('cat', 'c1', 'text'),
          { type: 'toolResult', toolUseId: 'l1', name: 'ls', status: 'success', content: [] },
        ],
        interrupts: [],
        terminate: { tool: 'cat', toolUseId: 'c1' },
      });
    });
  });

  describe("with a handler's own result", () => {
    /** The results of one call of ls, whose Wrap handler yields `event` instead of calling the tool. */
    async function resultsWith(event: (toolUseId: string) => unknown): Promise<readonly ToolResultBlock[]> {
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, async function* ownResult(context) {
        yield event(context.toolUse.toolUseId) as never;
      });
      const { value } = await drain(callTools(registry, { toolUses: [use('ls', 'l1')], tools: tools(), invocationState: {} }));
      return value.results;
    }

    it('keeps a frozen result as it is', async () => {
      const own = Object.freeze(success('ls', 'l1', 'mine'));
      const results = await resultsWith(() => Object.freeze({ type: 'toolResult', toolResult: own }));
      expect(results[0]).toBe(own);
    });

    it('freezes a copy of a result that is not frozen, even in a frozen event', async () => {
      const own = success('ls', 'l1', 'mine');
      const results = await resultsWith(() => Object.freeze({ type: 'toolResult', toolResult: own }));
      expect([results[0] === own, Object.isFrozen(results[0]), Object.isFrozen(own), results[0]]).toEqual([
        false,
        true,
        false,
        success('ls', 'l1', 'mine'),
      ]);
    });

    it('rejects a result that contains itself, naming the part as a part of the tool result', async () => {
      const block: Record<string, unknown> = { type: 'text', text: 'mine' };
      block.self = block;
      const error = await resultsWith((toolUseId) => ({
        type: 'toolResult',
        toolResult: { type: 'toolResult', toolUseId, name: 'ls', status: 'success', content: [block] },
      })).catch((caughtError: unknown) => caughtError);
      expect([fields(error).code, (error as Error).message]).toEqual([
        'ERR_INVALID_OPTIONS',
        expect.stringContaining('toolResult.content[0].self refers back to toolResult.content[0]'),
      ]);
    });
  });

  describe('with a result that reports malformed usage', () => {
    it('rejects with ERR_INVALID_OPTIONS for a result whose usage is not three numbers', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, async function* malformedUsage(context) {
        const usage = { inputTokens: 1 } as unknown as Usage;
        yield { type: 'toolResult', toolResult: success('ls', context.toolUse.toolUseId, 'a.txt'), usage };
      });
      const error = await drain(callTools(registry, { toolUses: [use('ls', 'l1')], tools: tools(), invocationState: {} })).catch(
        (caughtError: unknown) => caughtError,
      );
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_OPTIONS', stage: 'executeTool', phase: undefined, handler: undefined });
    });
  });

  describe('with parts it cannot run', () => {
    const base: ToolCallParts = { toolUses, tools: tools(), invocationState: {} };
    it.each([
      ['no parts', undefined, 'parts must be'],
      ['tool uses that are not tool-use blocks', { ...base, toolUses: [{ name: 'ls' }] }, 'parts.toolUses must be'],
      ['tools without a spec', { ...base, tools: [{ name: 'ls' }] }, 'parts.tools must be'],
      ['no invocation state', { ...base, invocationState: null }, 'parts.invocationState must be'],
      ['responses that are not an object', { ...base, responses: 'yes' }, 'parts.responses must be'],
      ['results that are not an array', { ...base, results: {} }, 'parts.results must be an array'],
      ['a result for no tool use', { ...base, results: [success('ls', 'x9', 'a')] }, 'parts.results must answer'],
      [
        'two results for one tool use',
        { ...base, results: [success('ls', 'l1', 'a'), success('ls', 'l1', 'b')] },
        'parts.results must answer',
      ],
    ])('throws ERR_INVALID_OPTIONS at once for %s, saying which part', (_case, parts, says) => {
      const error = caught(() => callTools(new MiddlewareRegistry(), parts as ToolCallParts));
      expect({ ...fields(error), says: error.message.includes(`callTools(registry, parts): ${says}`) }).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'executeTool',
        phase: undefined,
        handler: undefined,
        says: true,
      });
    });

    it('refuses any malformed tool uses or results with a MiddlewareError, never another error', () => {
      fc.assert(
        fc.property(fc.anything(), fc.anything(), (toolUsesValue, results) => {
          const parts = { toolUses: [toolUsesValue], tools: [], invocationState: {}, results: [results] } as unknown as ToolCallParts;
          try {
            callTools(new MiddlewareRegistry(), parts);
          } catch (error) {
            return MiddlewareError.isInstance(error);
          }
          return true;
        }),
        { numRuns: 200 },
      );
    });
  });

  describe('with a result given under __proto__ keys', () => {
    it('takes the result as ordinary own data', async () => {
      const result = JSON.parse(
        '{"type":"toolResult","toolUseId":"l1","name":"ls","status":"success","content":[],"__proto__":{"x":1}}',
      ) as ToolResultBlock;
      const { value } = await drain(
        callTools(new MiddlewareRegistry(), { toolUses: [use('ls', 'l1')], tools: [], invocationState: {}, results: [result] }),
      );
      expect({ own: Object.hasOwn(value.results[0] ?? {}, '__proto__'), inherited: (value.results[0] as { x?: unknown }).x }).toEqual({
        own: true,
        inherited: undefined,
      });
    });
  });
});
