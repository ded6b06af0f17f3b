import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, ExecuteToolStage } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';

describe('Agent', () => {
  describe('tools', () => {
    it('runs an unknown tool through ExecuteToolStage with tool undefined and ends in an error result', async () => {
      const registry = new MiddlewareRegistry();
      const seen: unknown[] = [];
      registry.add(ExecuteToolStage.Input, (context) => (seen.push([context.tool, context.toolUse]), context));
      const model = new ScriptedModel([toolUseTurn([{ name: 'missing', input: { q: 1 }, toolUseId: 'm1' }]), textTurn('sorry')]);
      const agent = new Agent({ model, registry });
      await agent.invoke('go');
      expect(seen).toEqual([[undefined, { name: 'missing', toolUseId: 'm1', input: { q: 1 } }]]);
      expect(agent.messages[2]).toEqual({
        role: 'user',
        content: [
          {
            type: 'toolResult',
            toolUseId: 'm1',
            name: 'missing',
            status: 'error',
            content: [{ type: 'text', text: 'Unknown tool "missing": the agent has no tool by that name.' }],
          },
        ],
      });
    });

    it('turns a tool failure into an error result that Output handlers see with the thrown error', async () => {
      const failure = new Error('disk full');
      const registry = new MiddlewareRegistry();
      const seen: unknown[] = [];
      registry.add(ExecuteToolStage.Output, (result) => (seen.push(result.value.error), result));
      const model = new ScriptedModel([toolUseTurn([{ name: 'save', input: {}, toolUseId: 's1' }]), textTurn('failed')]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'save', outcomes: [{ error: failure }] })], registry });
      await agent.invoke('go');
      expect(seen[0]).toBe(failure);
      expect(agent.messages[2]?.content).toEqual([
        {
          type: 'toolResult',
          toolUseId: 's1',
          name: 'save',
          status: 'error',
          content: [{ type: 'text', text: 'Tool "save" failed: disk full' }],
        },
      ]);
    });

    it('gives the tool the run abort signal, which agent.cancel() aborts', async () => {
      let agent: Agent | undefined;
      const tool = new ScriptedTool({
        name: 'slow',
        respond: (_input, context) => {
          agent?.cancel();
          return context.signal.aborted ? 'saw abort' : 'no abort';
        },
      });
      agent = new Agent({ model: new ScriptedModel([toolUseTurn([{ name: 'slow', input: {} }])]), tools: [tool] });
      const result = await agent.invoke('go');
      expect([result.stopReason, tool.calls[0]?.signal.aborted]).toEqual(['cancelled', true]);
    });

    it('sends a string tool result as text', async () => {
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {}, toolUseId: 'a1' }]), textTurn('ok')]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a', outcomes: [{ value: 'plain' }] })] });
      await agent.invoke('go');
      expect(agent.messages[2]?.content).toEqual([
        { type: 'toolResult', toolUseId: 'a1', name: 'a', status: 'success', content: [{ type: 'text', text: 'plain' }] },
      ]);
    });

    it('turns a non-Error throw into an error result naming the thrown value', async () => {
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {}, toolUseId: 'a1' }]), textTurn('ok')]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a', outcomes: [{ error: 'nope' }] })] });
      await agent.invoke('go');
      expect(agent.messages[2]?.content).toEqual([
        { type: 'toolResult', toolUseId: 'a1', name: 'a', status: 'error', content: [{ type: 'text', text: 'Tool "a" failed: nope' }] },
      ]);
    });
  });
});
