import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../../src/core/index';
import { Agent, InvokeModelStage, prepareTurn, type PrepareTurn } from '../../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../../src/testing/index';

/** An agent with the tools search and calc whose registry prepares each turn with `prepare`. */
function agentWith(
  prepare: PrepareTurn,
  model = new ScriptedModel([toolUseTurn([{ name: 'search', input: {}, toolUseId: 's1' }]), textTurn('Found.')]),
) {
  const registry = new MiddlewareRegistry();
  registry.add(InvokeModelStage.Input, prepareTurn(prepare));
  const agent = new Agent({ model, registry, tools: [new ScriptedTool({ name: 'search' }), new ScriptedTool({ name: 'calc' })] });
  return { agent, model };
}

describe('prepareTurn', () => {
  describe('active tools and tool choice per turn', () => {
    it('offers the first turn only the listed tools with the given choice, and later turns everything', async () => {
      const turns: number[] = [];
      const { agent, model } = agentWith((_context, turn) => {
        turns.push(turn);
        return turn === 1 ? { activeTools: ['search', 'missing'], toolChoice: { type: 'any' } } : undefined;
      });
      await agent.invoke('Find it');
      expect([turns, model.calls.map((call) => [call.request.toolSpecs.map((spec) => spec.name), call.request.toolChoice])]).toEqual([
        [1, 2],
        [
          [['search'], { type: 'any' }],
          [['search', 'calc'], undefined],
        ],
      ]);
    });
  });

  describe('a model per turn', () => {
    it('calls the model it returns for that turn', async () => {
      const cheap = new ScriptedModel([textTurn('Cheap answer.')]);
      const { agent, model } = agentWith((_context, turn) => (turn === 2 ? { model: cheap } : undefined));
      const result = await agent.invoke('Find it');
      expect([model.calls.length, cheap.calls.length, result.message?.content]).toEqual([1, 1, [{ type: 'text', text: 'Cheap answer.' }]]);
    });
  });

  describe('the turn count', () => {
    it('starts again at 1 with each message the user writes', async () => {
      const turns: number[] = [];
      const model = new ScriptedModel([textTurn('One.'), textTurn('Two.')]);
      const { agent } = agentWith((_context, turn) => {
        turns.push(turn);
        return undefined;
      }, model);
      await agent.invoke('First');
      await agent.invoke('Second');
      expect(turns).toEqual([1, 1]);
    });
  });

  describe('a preparation of the wrong shape', () => {
    it.each<[string, unknown]>([
      ['a string', 'search'],
      ['a model without stream()', { model: {} }],
      ['activeTools that are no names', { activeTools: [1] }],
      ['a toolChoice that is no object', { toolChoice: 'any' }],
    ])('fails the call with ERR_INVALID_OPTIONS for %s', async (_name, preparation) => {
      const { agent } = agentWith(() => preparation as never);
      await expect(agent.invoke('Find it')).rejects.toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'invokeModel', phase: 'input', handler: 'prepareTurn' }),
      );
    });
  });

  it('refuses a prepare that is no function with ERR_INVALID_OPTIONS', () => {
    expect(() => prepareTurn('search' as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'prepareTurn' }));
  });
});
