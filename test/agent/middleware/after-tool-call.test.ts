import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, MiddlewareResult } from '../../../src/core/index';
import { runStage, ScriptedModel, ScriptedTool, scriptedTerminal, textTurn, toolUseTurn } from '../../../src/testing/index';
import { Agent, ExecuteToolStage, afterToolCall, type ExecuteToolContext, type ToolResultEvent } from '../../../src/agent/index';
import type { ToolResultPatch } from '../../../src/agent/middleware/after-tool-call';

const raw: ToolResultEvent = {
  type: 'toolResult',
  toolResult: { type: 'toolResult', toolUseId: 't1', name: 'lookup', status: 'success', content: [{ type: 'text', text: 'raw' }] },
};
const context = { toolUse: { name: 'lookup', toolUseId: 't1', input: {} } } as unknown as ExecuteToolContext;

/** The result of the Output handlers made from `patches`, registered in that order. */
async function merged(...patches: (ToolResultPatch | undefined)[]): Promise<unknown> {
  const run = await runStage(ExecuteToolStage, {
    context,
    terminal: scriptedTerminal([[raw]]),
    handlers: patches.map(
      (patch, index) =>
        [ExecuteToolStage.Output, afterToolCall(Object.defineProperty(() => patch, 'name', { value: `m${index + 1}` }))] as const,
    ),
  });
  return run.result;
}

describe('afterToolCall', () => {
  describe('given something that is not a function', () => {
    it('throws ERR_INVALID_OPTIONS naming afterToolCall', () => {
      let error: unknown;
      try {
        afterToolCall('redact' as never);
      } catch (caught) {
        error = caught;
      }
      expect([MiddlewareError.isInstance(error), (error as MiddlewareError).code, (error as MiddlewareError).handler]).toEqual([
        true,
        'ERR_INVALID_OPTIONS',
        'afterToolCall',
      ]);
    });
  });

  describe('its name', () => {
    it('is the hook name, or afterToolCall for a hook without one', () => {
      expect([
        afterToolCall(function redact() {
          return undefined;
        }).name,
        afterToolCall(() => undefined).name,
      ]).toEqual(['redact', 'afterToolCall']);
    });
  });

  describe('with a hook returning nothing', () => {
    it('returns the very result it got', async () => {
      const handler = afterToolCall(() => undefined);
      const result = new MiddlewareResult(raw);
      expect(await handler(result, { stage: ExecuteToolStage, signal: new AbortController().signal, handler: 'afterToolCall' })).toBe(
        result,
      );
    });
  });

  describe('merging the patches of handlers registered in list order', () => {
    it.each<[string, (ToolResultPatch | undefined)[], unknown]>([
      [
        'one patch of every field',
        [{ content: [{ type: 'text', text: 'new' }], status: 'error', terminate: true }],
        { ...raw, toolResult: { ...raw.toolResult, status: 'error', content: [{ type: 'text', text: 'new' }] }, terminate: true },
      ],
      [
        'a later content over an earlier one',
        [{ content: [{ type: 'text', text: 'early' }] }, { content: [{ type: 'text', text: 'late' }] }],
        { ...raw, toolResult: { ...raw.toolResult, content: [{ type: 'text', text: 'late' }] } },
      ],
      [
        'an earlier field no later one sets',
        [{ status: 'error' }, { content: [{ type: 'text', text: 'late' }] }],
        { ...raw, toolResult: { ...raw.toolResult, status: 'error', content: [{ type: 'text', text: 'late' }] } },
      ],
      ['a later terminate: false over an earlier true', [{ terminate: true }, { terminate: false }], { ...raw, terminate: false }],
      [
        'an undefined field, which sets nothing',
        [{ status: 'error' }, { status: undefined }],
        { ...raw, toolResult: { ...raw.toolResult, status: 'error' } },
      ],
      ['three handlers, the middle one silent', [{ status: 'error' }, undefined, { status: 'success' }], raw],
    ])('gives %s', async (_label, patches, expected) => {
      expect(await merged(...patches)).toEqual(expected);
    });
  });

  describe('what it returns', () => {
    it('is frozen, and keeps the thrown error of the result as it is', async () => {
      const thrown = new Error('tool failed');
      const registry = new MiddlewareRegistry();
      registry.add(
        ExecuteToolStage.Output,
        afterToolCall(() => ({ status: 'error' })),
      );
      const result = await registry.run(ExecuteToolStage, context, scriptedTerminal([[{ ...raw, error: thrown }]]));
      expect([Object.isFrozen(result), Object.isFrozen(result.toolResult), result.error === thrown, Object.isFrozen(thrown)]).toEqual([
        true,
        true,
        true,
        false,
      ]);
    });
  });

  describe('in an agent run', () => {
    it("reads the tool's name on the result, so a hook can patch the results of one tool", async () => {
      const registry = new MiddlewareRegistry();
      const seen: string[] = [];
      registry.add(
        ExecuteToolStage.Output,
        afterToolCall(function maskLookups(result) {
          seen.push(result.toolResult.name);
          return result.toolResult.name === 'lookup' ? { content: [{ type: 'text', text: '[masked]' }] } : undefined;
        }),
      );
      const model = new ScriptedModel([
        toolUseTurn([
          { name: 'lookup', input: {}, toolUseId: 'l1' },
          { name: 'clock', input: {}, toolUseId: 'c1' },
        ]),
        textTurn('Done.'),
      ]);
      const agent = new Agent({
        model,
        registry,
        tools: [
          new ScriptedTool({ name: 'lookup', respond: () => 'card 4111' }),
          new ScriptedTool({ name: 'clock', respond: () => '12:00' }),
        ],
      });
      await agent.invoke('Go.');
      expect([seen, agent.messages[2]?.content]).toEqual([
        ['lookup', 'clock'],
        [
          { type: 'toolResult', toolUseId: 'l1', name: 'lookup', status: 'success', content: [{ type: 'text', text: '[masked]' }] },
          { type: 'toolResult', toolUseId: 'c1', name: 'clock', status: 'success', content: [{ type: 'text', text: '12:00' }] },
        ],
      ]);
    });
  });
});
