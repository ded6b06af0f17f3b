/**
 * CubePi's tool result `details`, ported: data for the application beside
 * the content a tool result gives the model, set by an after_tool_call hook
 * and kept in the history and snapshots, never sent to the model.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../../src/core/index';
import { Agent, ExecuteToolStage, afterToolCall, type AgentSnapshot, type ToolResultBlock } from '../../../src/agent/index';
import { providerCachePoint, toCallOptions } from '../../../src/ai-sdk/prompt';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../../src/testing/index';
import { jsonValue } from '../untrusted-values';
import { say } from './cubepi-messages';

const resultWith = (details: unknown): ToolResultBlock => ({
  type: 'toolResult',
  toolUseId: 'l1',
  name: 'lookup',
  status: 'success',
  content: [{ type: 'text', text: '[redacted]' }],
  details,
});

describe('afterToolCall', () => {
  describe("CubePi's details: an early hook adds them, a later one sanitises the content", () => {
    it('keeps both in the history and its snapshot, the details of the earlier hook', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(
        ExecuteToolStage.Output,
        afterToolCall(function richDetails(result) {
          return { details: { source: result.toolResult.name, rows: 2 } };
        }),
      );
      registry.add(
        ExecuteToolStage.Output,
        afterToolCall(function sanitise() {
          return { content: [{ type: 'text', text: '[redacted]' }] };
        }),
      );
      const model = new ScriptedModel([toolUseTurn([{ name: 'lookup', input: {}, toolUseId: 'l1' }]), textTurn('done')]);
      const agent = new Agent({ model, registry, tools: [new ScriptedTool({ name: 'lookup', respond: () => 'card 4111' })] });
      await agent.invoke('go');
      const expected = resultWith({ source: 'lookup', rows: 2 });
      expect([agent.messages[2]?.content, agent.snapshot().messages[2]?.content]).toEqual([[expected], [expected]]);
    });
  });
});

describe('toCallOptions', () => {
  it("sends a tool result's content without its details", () => {
    const messages = [say('user', 'go'), { role: 'user' as const, content: [resultWith({ secret: 'kept here' })] }];
    const options = toCallOptions(
      { messages, systemBlocks: [], toolSpecs: [] } as never,
      new AbortController().signal,
      undefined,
      providerCachePoint,
    );
    expect([JSON.stringify(options.prompt).includes('[redacted]'), JSON.stringify(options.prompt).includes('kept here')]).toEqual([
      true,
      false,
    ]);
  });
});

describe('Agent restored from a snapshot', () => {
  describe('a tool result with details from outside', () => {
    it('keeps the details as they were given, __proto__ an ordinary key', () => {
      fc.assert(
        fc.property(jsonValue, (details) => {
          const snapshot: AgentSnapshot = {
            version: 1,
            messages: [say('user', 'go'), { role: 'user', content: [resultWith(details)] }],
            modelState: {},
            usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
            halted: null,
          };
          const given = JSON.parse(JSON.stringify(snapshot)) as AgentSnapshot;
          const agent = new Agent({ model: new ScriptedModel([]), snapshot: given });
          const kept = (agent.messages[1]?.content[0] as ToolResultBlock).details;
          expect(JSON.stringify(kept)).toEqual(JSON.stringify(details));
          expect(kept).toEqual(details);
        }),
        { numRuns: 60 },
      );
    });
  });
});
