import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { Agent, TurnStage, turnAction, type Message, type TurnAction } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn, type ScriptedTurn } from '../../src/testing/index';
import { assistant, user, ZERO } from './fixtures';

/** `count` turns that each ask for the tool `a`. */
const toolTurns = (count: number): ScriptedTurn[] =>
  Array.from({ length: count }, (_, index) => toolUseTurn([{ name: 'a', input: {}, toolUseId: `a${index + 1}` }]));

/** The assistant message of a tool turn, and the tool result that answers it. */
const toolRound = (index: number): Message[] => [
  { role: 'assistant', content: [{ type: 'toolUse', toolUseId: `a${index}`, name: 'a', input: {} }] },
  {
    role: 'user',
    content: [{ type: 'toolResult', toolUseId: `a${index}`, name: 'a', status: 'success', content: [{ type: 'text', text: 'ok' }] }],
  },
];

/** A registry whose turn decision is `action` after every turn. */
function deciding(action: TurnAction): MiddlewareRegistry {
  const registry = new MiddlewareRegistry();
  registry.add(
    TurnStage.Wrap,
    turnAction(function decide() {
      return action;
    }),
  );
  return registry;
}

/** What `new Agent(options)` throws. */
function thrownBy(create: () => unknown): unknown {
  try {
    create();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('Agent', () => {
  describe('maxTurns', () => {
    it('ends a run whose model keeps asking for tools after 20 turns by default, with stop reason maxTurns', async () => {
      const model = new ScriptedModel(toolTurns(21));
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a' })] });
      const result = await agent.invoke('go');
      expect([result, model.calls.length, agent.messages.length]).toEqual([
        {
          type: 'agentResult',
          stopReason: 'maxTurns',
          message: toolRound(20)[0],
          interrupts: [],
          usage: ZERO,
          stoppedBy: { handler: 'maxTurns', reason: 'reached the limit of 20 turns' },
        },
        20,
        41,
      ]);
    });

    it('ends the run after the turn the limit allows last, keeping its tool results', async () => {
      const model = new ScriptedModel(toolTurns(3));
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a' })], maxTurns: 2 });
      const result = await agent.invoke('go');
      expect([result.stopReason, result.stoppedBy, model.calls.length, agent.messages]).toEqual([
        'maxTurns',
        { handler: 'maxTurns', reason: 'reached the limit of 2 turns' },
        2,
        [user('go'), ...toolRound(1), ...toolRound(2)],
      ]);
    });

    it('ends a run whose turn decision keeps deciding loopToModel, appending the onRunEnd messages', async () => {
      const model = new ScriptedModel([textTurn('one'), textTurn('two'), textTurn('three')]);
      const registry = deciding({ decision: 'loopToModel', onRunEnd: [user('bye')] });
      const agent = new Agent({ model, registry, maxTurns: 2 });
      const result = await agent.invoke('go');
      expect([result.stopReason, result.message, agent.messages]).toEqual([
        'maxTurns',
        assistant('two'),
        [user('go'), assistant('one'), assistant('two'), user('bye')],
      ]);
    });

    it.each<[string, TurnAction | undefined, string]>([
      ['a stop decision', { decision: 'stop', reason: 'done' }, 'stopped'],
      ['the natural end of a turn without tools', undefined, 'endTurn'],
    ])('lets %s on the last allowed turn end the run as it would without the limit', async (_name, action, stopReason) => {
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {}, toolUseId: 'a1' }]), textTurn('done')]);
      const registry = action === undefined ? new MiddlewareRegistry() : deciding(action);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a' })], registry, maxTurns: action === undefined ? 2 : 1 });
      expect((await agent.invoke('go')).stopReason).toEqual(stopReason);
    });

    it('counts the turns of each run from 1', async () => {
      const model = new ScriptedModel(toolTurns(4));
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a' })], maxTurns: 2 });
      const first = await agent.invoke('one');
      const second = await agent.invoke('two');
      expect([first.stopReason, second.stopReason, model.calls.length]).toEqual(['maxTurns', 'maxTurns', 4]);
    });

    it('sets no limit with Infinity', async () => {
      const model = new ScriptedModel([...toolTurns(30), textTurn('done')]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a' })], maxTurns: Infinity });
      const result = await agent.invoke('go');
      expect([result.stopReason, model.calls.length]).toEqual(['endTurn', 31]);
    });

    it.each<[string, unknown, string]>([
      ['0', 0, 'number 0'],
      ['a negative number', -1, 'number -1'],
      ['NaN', NaN, 'number NaN'],
      ['a fraction', 1.5, 'number 1.5'],
      ['-Infinity', -Infinity, 'number -Infinity'],
      ['a numeric string', '3', 'the string "3"'],
      ['null', null, 'null'],
    ])('refuses %s with ERR_INVALID_OPTIONS naming options.maxTurns', (_name, maxTurns, shown) => {
      const error = thrownBy(() => new Agent({ model: new ScriptedModel([]), maxTurns: maxTurns as number })) as MiddlewareError;
      expect([MiddlewareError.isInstance(error), error.code, error.stage, error.message]).toEqual([
        true,
        'ERR_INVALID_OPTIONS',
        'agentStream',
        `[ERR_INVALID_OPTIONS] Agent: options.maxTurns must be a positive integer (the most turns a run makes) or Infinity (no limit), got ${shown}.`,
      ]);
    });
  });
});
