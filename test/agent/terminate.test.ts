import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import {
  Agent,
  ExecuteToolStage,
  TurnStage,
  afterToolCall,
  turnTerminal,
  type AgentSnapshot,
  type TurnContext,
  type TurnResultEvent,
} from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { collect } from './fixtures';

/** A registry whose results of `tool` ask to end the run. */
function ending(tool: string): MiddlewareRegistry {
  const registry = new MiddlewareRegistry();
  registry.add(
    ExecuteToolStage.Output,
    afterToolCall(function endOn(result) {
      return result.toolResult.toolUseId.startsWith(tool) ? { terminate: true } : undefined;
    }),
  );
  return registry;
}

describe('turnTerminal', () => {
  describe('for a turn whose tool result asked to end the run', () => {
    it('decides stop, stopped by terminate with the tool name', async () => {
      const context = {
        turn: {
          index: 1,
          message: { role: 'assistant', content: [] },
          toolResults: [],
          stopReason: 'toolUse',
          terminate: { tool: 'finish', toolUseId: 'f1' },
        },
      } as unknown as TurnContext;
      const events = await collect(turnTerminal(context, undefined as never) as never);
      expect([events, Object.isFrozen(events[0]), Object.isFrozen((events[0] as unknown as TurnResultEvent).stoppedBy)]).toEqual([
        [{ type: 'turnResult', decision: 'stop', inject: [], onRunEnd: [], stoppedBy: { handler: 'terminate', reason: 'finish' } }],
        true,
        true,
      ]);
    });
  });
});

describe('Agent', () => {
  describe('with two tool results of a turn asking to end the run', () => {
    it('names the first in message order in the TurnStage context', async () => {
      const registry = ending('f');
      const seen: unknown[] = [];
      registry.add(TurnStage.Input, (context) => (seen.push(context.turn.terminate), context));
      const model = new ScriptedModel([
        toolUseTurn([
          { name: 'look', input: {}, toolUseId: 'l1' },
          { name: 'finish', input: {}, toolUseId: 'f2' },
          { name: 'finish', input: {}, toolUseId: 'f1' },
        ]),
      ]);
      const result = await new Agent({
        model,
        registry,
        tools: [new ScriptedTool({ name: 'look' }), new ScriptedTool({ name: 'finish' })],
      }).invoke('go');
      expect([seen, result.stopReason]).toEqual([[{ tool: 'finish', toolUseId: 'f2' }], 'stopped']);
    });
  });

  describe('with a TurnStage handler that overrules the stop', () => {
    it('goes on to the next turn', async () => {
      const registry = ending('f');
      registry.add(TurnStage.Output, (result) => result.replace({ type: 'turnResult', decision: 'natural', inject: [], onRunEnd: [] }));
      const model = new ScriptedModel([toolUseTurn([{ name: 'finish', input: {}, toolUseId: 'f1' }]), textTurn('went on')]);
      const result = await new Agent({ model, registry, tools: [new ScriptedTool({ name: 'finish' })] }).invoke('go');
      expect([result.stopReason, model.calls.length]).toEqual(['endTurn', 2]);
    });
  });

  describe('halted on a turn with a result that asked to end the run', () => {
    it('keeps the tool-use ids in the snapshot, and refuses ids that are not strings', async () => {
      const registry = ending('f');
      registry.add(ExecuteToolStage.Wrap, async function* approve(context, next) {
        if (context.toolUse.name === 'ask') context.interrupt({ name: 'approve' });
        yield* next();
      });
      const tools = [new ScriptedTool({ name: 'finish' }), new ScriptedTool({ name: 'ask' })];
      const agent = new Agent({
        model: new ScriptedModel([
          toolUseTurn([
            { name: 'finish', input: {}, toolUseId: 'f1' },
            { name: 'ask', input: {}, toolUseId: 'a1' },
          ]),
        ]),
        registry,
        tools,
      });
      await agent.invoke('go');
      const snapshot = agent.snapshot();
      const spoiled = JSON.parse(JSON.stringify(snapshot)) as { halted: { turn: { terminating: unknown } } };
      spoiled.halted.turn.terminating = [1];
      let error: unknown;
      try {
        new Agent({ model: new ScriptedModel([]), snapshot: spoiled as unknown as AgentSnapshot });
      } catch (caught) {
        error = caught;
      }
      expect([
        snapshot.halted?.turn?.terminating,
        (error as MiddlewareError).code,
        (error as Error).message.includes('options.snapshot.halted.turn.terminating'),
      ]).toEqual([['f1'], 'ERR_INVALID_OPTIONS', true]);
    });

    it('leaves terminating out of a snapshot when no result asked', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, async function* approve(context, next) {
        context.interrupt({ name: 'approve' });
        yield* next();
      });
      const agent = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'ask', input: {}, toolUseId: 'a1' }])]),
        registry,
        tools: [new ScriptedTool({ name: 'ask' })],
      });
      await agent.invoke('go');
      expect(Object.keys(agent.snapshot().halted?.turn ?? {})).toEqual(['message', 'results']);
    });
  });
});
