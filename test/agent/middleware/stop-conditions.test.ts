import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../../src/core/index';
import { Agent, maxTurns, stopAfterTool, stopWhen, TurnStage, turnAction, type TurnContext } from '../../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn, type ScriptedTurn } from '../../../src/testing/index';

/** `count` turns that each ask for the tool `a`, then an answer. */
const toolTurns = (count: number): ScriptedTurn[] => [
  ...Array.from({ length: count }, (_, index) => toolUseTurn([{ name: 'a', input: {}, toolUseId: `a${index + 1}` }])),
  textTurn('Done.'),
];

/** An agent whose registry has `handlers` on TurnStage.Wrap, with the tools a and final_answer. */
function agentWith(turns: ScriptedTurn[], ...handlers: Parameters<MiddlewareRegistry['add']>[1][]) {
  const registry = new MiddlewareRegistry();
  for (const handler of handlers) registry.add(TurnStage.Wrap, handler as never);
  const model = new ScriptedModel(turns);
  const agent = new Agent({ model, registry, tools: [new ScriptedTool({ name: 'a' }), new ScriptedTool({ name: 'final_answer' })] });
  return { agent, model };
}

describe('maxTurns', () => {
  describe('a run that would go on past n turns', () => {
    it('stops after turn n with stoppedBy naming maxTurns', async () => {
      const { agent, model } = agentWith(toolTurns(5), maxTurns(2));
      const result = await agent.invoke('go');
      expect([result.stopReason, result.stoppedBy, model.calls.length]).toEqual([
        'stopped',
        { handler: 'maxTurns', reason: 'reached 2 turns' },
        2,
      ]);
    });
  });

  describe('a run that ends by itself at turn n', () => {
    it('keeps its own stop reason', async () => {
      const { agent } = agentWith(toolTurns(1), maxTurns(2));
      const result = await agent.invoke('go');
      expect([result.stopReason, result.stoppedBy]).toEqual(['endTurn', undefined]);
    });
  });

  describe('given to one run', () => {
    it('limits that run only', async () => {
      const { agent, model } = agentWith([...toolTurns(3), ...toolTurns(3)]);
      const limited = await agent.invoke('go', {
        use: [{ name: 'limit', setup: (registrar) => void registrar.add(TurnStage.Wrap, maxTurns(1)) }],
      });
      const free = await agent.invoke('again');
      expect([limited.stopReason, free.stopReason, model.calls.length]).toEqual(['stopped', 'endTurn', 1 + 3]);
    });
  });

  it.each([0, 1.5, -1, Number.NaN, '2'])('refuses %s with ERR_INVALID_OPTIONS', (n) => {
    expect(() => maxTurns(n as number)).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'maxTurns', phase: 'register' }),
    );
  });
});

describe('stopAfterTool', () => {
  describe('a turn whose model called the tool', () => {
    it('stops the run once the call ran, and the history keeps its result', async () => {
      const turns = [
        toolUseTurn([{ name: 'a', input: {}, toolUseId: 'a1' }]),
        toolUseTurn([{ name: 'final_answer', input: { text: '42' }, toolUseId: 'f1' }]),
        textTurn('unused'),
      ];
      const { agent, model } = agentWith(turns, stopAfterTool('final_answer'));
      const result = await agent.invoke('go');
      expect([result.stopReason, result.stoppedBy, model.calls.length, agent.messages.at(-1)?.content]).toEqual([
        'stopped',
        { handler: 'stopAfterTool', reason: 'called final_answer' },
        2,
        [{ type: 'toolResult', toolUseId: 'f1', name: 'final_answer', status: 'success', content: [{ type: 'text', text: 'ok' }] }],
      ]);
    });
  });

  it.each(['', 3, undefined])('refuses the name %s with ERR_INVALID_OPTIONS', (name) => {
    expect(() => stopAfterTool(name as string)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'stopAfterTool' }));
  });
});

describe('stopWhen', () => {
  describe('several conditions', () => {
    it('stops when any holds, the first that holds giving the reason', async () => {
      const seen: number[] = [];
      const { agent } = agentWith(
        toolTurns(5),
        stopWhen(
          function never(context: TurnContext) {
            seen.push(context.turn.index);
            return false;
          },
          function thirdTurn(context: TurnContext) {
            return context.turn.index === 3;
          },
        ),
      );
      const result = await agent.invoke('go');
      expect([result.stopReason, result.stoppedBy, seen]).toEqual(['stopped', { handler: 'stopWhen', reason: 'thirdTurn' }, [1, 2, 3]]);
    });
  });

  describe('a condition that returns a truthy value other than true', () => {
    it('does not stop the run', async () => {
      const { agent } = agentWith(toolTurns(2), stopWhen((() => 'yes') as unknown as () => boolean));
      expect((await agent.invoke('go')).stopReason).toEqual('endTurn');
    });
  });

  describe('a turn after which the run ends anyway', () => {
    it('checks no condition', async () => {
      let checked = 0;
      const { agent } = agentWith(
        [textTurn('Hi.')],
        stopWhen(() => {
          checked++;
          return true;
        }),
      );
      const result = await agent.invoke('go');
      expect([result.stopReason, checked]).toEqual(['endTurn', 0]);
    });
  });

  describe('a turn an inner handler loops to the model after', () => {
    it('stops the run the decision would go on with', async () => {
      const loop = turnAction(function again(context) {
        return context.turn.index === 1 ? { decision: 'loopToModel' } : undefined;
      });
      const registry = new MiddlewareRegistry();
      registry.add(
        TurnStage.Wrap,
        stopWhen(() => true),
      );
      registry.add(TurnStage.Wrap, loop);
      const agent = new Agent({ model: new ScriptedModel([textTurn('One.'), textTurn('Two.')]), registry });
      const result = await agent.invoke('go');
      expect([result.stopReason, result.stoppedBy]).toEqual(['stopped', { handler: 'stopWhen' }]);
    });
  });

  it.each<[string, unknown[]]>([
    ['no condition', []],
    ['a condition that is no function', [true]],
  ])('refuses %s with ERR_INVALID_OPTIONS', (_name, conditions) => {
    expect(() => stopWhen(...(conditions as never[]))).toThrow(
      expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'stopWhen' }),
    );
  });
});
