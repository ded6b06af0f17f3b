import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/index';
import { ExecuteToolStage, InvokeModelStage } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { ownLoop } from '../../examples/own-loop';

describe('ownLoop', () => {
  describe('with middleware on both stages', () => {
    it('streams text, runs tools through ExecuteToolStage and keeps the Output-transformed messages', async () => {
      const registry = new MiddlewareRegistry();
      const seenTools: string[] = [];
      registry.add(ExecuteToolStage.Input, (context) => (seenTools.push(context.toolUse.name), context));
      registry.add(InvokeModelStage.Output, (result) =>
        result.update((draft) => {
          for (const block of draft.message.content) if (block.type === 'text') block.text = block.text.toUpperCase();
        }),
      );
      const model = new ScriptedModel([
        { ...toolUseTurn([{ name: 'clock', input: {}, toolUseId: 'c1' }, { name: 'ghost', input: {}, toolUseId: 'g1' }]), stateWrites: { calls: 1 } },
        textTurn('it is noon'),
      ]);
      const texts: string[] = [];
      const history = await ownLoop(registry, model, [new ScriptedTool({ name: 'clock', outcomes: [{ value: '12:00' }] })], 'time?', (text) => texts.push(text));
      expect(texts.join('')).toEqual('it is noon');
      expect(seenTools).toEqual(['clock', 'ghost']);
      expect(history).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'time?' }] },
        { role: 'assistant', content: [{ type: 'toolUse', toolUseId: 'c1', name: 'clock', input: {} }, { type: 'toolUse', toolUseId: 'g1', name: 'ghost', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'toolResult', toolUseId: 'c1', status: 'success', content: [{ type: 'text', text: '12:00' }] },
            { type: 'toolResult', toolUseId: 'g1', status: 'error', content: [{ type: 'text', text: 'Unknown tool "ghost": the agent has no tool by that name.' }] },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'IT IS NOON' }] },
      ]);
      expect(model.calls.map((call) => [call.request.systemPrompt, call.state])).toEqual([
        ['You are terse.', {}],
        ['You are terse.', { calls: 1 }],
      ]);
    });
  });
});
