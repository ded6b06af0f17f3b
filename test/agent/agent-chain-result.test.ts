import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, InvokeModelStage, type ModelResultEvent } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { assistant, ZERO } from './fixtures';

describe('Agent', () => {
  describe('authoritative chain result', () => {
    it('stores the Output-transformed message in the history', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Output, (result) =>
        result.update((draft) => {
          draft.message.content = [{ type: 'text', text: 'rewritten' }];
        }),
      );
      const agent = new Agent({ model: new ScriptedModel([textTurn('original')]), registry });
      const result = await agent.invoke('go');
      expect(agent.messages[1]).toEqual(assistant('rewritten'));
      expect(result.message).toEqual(assistant('rewritten'));
    });

    it('does not call the tool when an Output handler turns toolUse into endTurn', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Output, (result) => result.replace({ ...result.value, stopReason: 'endTurn' }));
      const tool = new ScriptedTool({ name: 'a' });
      const agent = new Agent({ model: new ScriptedModel([toolUseTurn([{ name: 'a', input: {} }])]), tools: [tool], registry });
      const result = await agent.invoke('go');
      expect([result.stopReason, tool.calls.length, agent.messages.length]).toEqual(['endTurn', 0, 2]);
    });

    it('dispatches the tools of a message a Wrap handler substituted', async () => {
      const registry = new MiddlewareRegistry();
      let calls = 0;
      registry.add(InvokeModelStage.Wrap, async function* substitute(_context, next) {
        if (calls++ > 0) return yield* next();
        const result: ModelResultEvent = {
          type: 'modelResult',
          message: { role: 'assistant', content: [{ type: 'toolUse', toolUseId: 'w1', name: 'a', input: { from: 'wrap' } }] },
          stopReason: 'toolUse',
          usage: ZERO,
        };
        yield result;
      });
      const tool = new ScriptedTool({ name: 'a' });
      const agent = new Agent({ model: new ScriptedModel([textTurn('done')]), tools: [tool], registry });
      await agent.invoke('go');
      expect(tool.calls.map((call) => [call.toolUseId, call.input])).toEqual([['w1', { from: 'wrap' }]]);
    });
  });
});
