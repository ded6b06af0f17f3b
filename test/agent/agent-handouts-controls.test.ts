import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import {
  Agent,
  AgentStreamStage,
  toolErrorAnswer,
  modelErrorAnswer,
  TurnStage,
  mergeTurnAction,
  turnAction,
  type AgentSnapshot,
  type ExecuteToolContext,
  type InvokeModelContext,
} from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { collect, user } from './fixtures';
import { mutableParts } from './mutable-parts';

describe('Agent', () => {
  describe('what the agent hands out', () => {
    it("hands out the turn decisions, their contexts, the agent view and a stopped run's result frozen", async () => {
      const registry = new MiddlewareRegistry();
      const seen: { contexts: unknown[]; decisions: unknown[]; views: unknown[] } = { contexts: [], decisions: [], views: [] };
      registry.add(TurnStage.Input, (context) => {
        seen.contexts.push(context);
        seen.views.push(context.agent);
        return context;
      });
      registry.add(TurnStage.Output, (result) => {
        seen.decisions.push(result.value);
        return result;
      });
      registry.add(
        TurnStage.Wrap,
        turnAction(function reminder(context) {
          return context.turn.index === 1
            ? { inject: [user('remember')], onRunEnd: [user('bye')] }
            : { decision: 'stop', reason: 'enough', onRunEnd: [user('bye')] };
        }),
      );
      const tool = new ScriptedTool({ name: 'a' });
      const agent = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'a', input: {} }]), textTurn('done')]),
        tools: [tool],
        registry,
        name: 'frozen',
      });
      const events = await collect(agent.stream('go'));
      const handedOut = {
        ...seen,
        events,
        merged: mergeTurnAction(
          { type: 'turnResult', decision: 'natural', inject: [], onRunEnd: [] },
          { decision: 'stop', inject: [user('x')] },
          'h',
        ),
      };
      expect([
        events.at(-1)?.type,
        (events.at(-1) as { stoppedBy?: unknown }).stoppedBy,
        seen.decisions.length,
        agent.messages.length,
      ]).toEqual(['agentResult', { handler: 'reminder', reason: 'enough' }, 2, 6]);
      expect(mutableParts(handedOut, 'handedOut')).toEqual([
        'handedOut',
        'handedOut.contexts',
        'handedOut.decisions',
        'handedOut.views',
        'handedOut.events',
      ]);
    });
    it("hands out interrupt events, several answers at once and a halted run's result frozen", async () => {
      const registry = new MiddlewareRegistry();
      const answers: unknown[] = [];
      registry.add(AgentStreamStage.Wrap, async function* gate(context, next) {
        answers.push(context.interrupt([{ name: 'budget', reason: { limit: [1] } }, { name: 'approve' }]));
        yield* next();
      });
      const asking = new ScriptedTool({
        name: 'ask',
        respond: (_input, context) => context.interrupt([{ name: 'size' }, { name: 'color' }]).map((answer) => answer.response),
      });
      const agent = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'ask', input: {}, toolUseId: 'q1' }]), textTurn('done')]),
        tools: [asking],
        registry,
      });
      const runHalt = await collect(agent.stream('go'));
      const toolHalt = await collect(
        agent.stream(undefined, { interruptResponses: { 'agentStream:budget': 'ok', 'agentStream:approve': 'yes' } }),
      );
      const finished = await collect(
        agent.stream(undefined, { interruptResponses: { 'executeTool:q1:size': 'M', 'executeTool:q1:color': 'red' } }),
      );
      expect([runHalt.length, toolHalt.filter((event) => event.type === 'interrupt').length, finished.at(-1)?.type]).toEqual([
        3,
        2,
        'agentResult',
      ]);
      // The interrupt's reason is the handler's own value, shared on purpose.
      expect(mutableParts({ runHalt, toolHalt, finished, answers }, 'handedOut')).toEqual([
        'handedOut',
        'handedOut.runHalt',
        'handedOut.toolHalt',
        'handedOut.finished',
        'handedOut.answers',
      ]);
    });
    it('hands out the standard answers, snapshots, restored state and usage frozen', async () => {
      const tool = new ScriptedTool({
        name: 'pay',
        respond: (_input, context) => context.interrupt({ name: 'confirm', reason: { amount: [5] } }).response,
      });
      const agent = new Agent({
        model: new ScriptedModel([
          toolUseTurn([{ name: 'pay', input: { to: ['bob'] }, toolUseId: 'p1' }], {
            usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
          }),
        ]),
        tools: [tool],
      });
      await agent.invoke('pay', { invocationState: { user: { name: 'ana' } } });
      const restored = new Agent({
        model: new ScriptedModel([]),
        tools: [tool],
        snapshot: JSON.parse(JSON.stringify(agent.snapshot())) as AgentSnapshot,
      });
      const handedOut = {
        snapshot: agent.snapshot(),
        usage: agent.usage,
        restored: {
          messages: restored.messages,
          modelState: restored.modelState,
          pendingInterrupts: restored.pendingInterrupts,
          usage: restored.usage,
          snapshot: restored.snapshot(),
        },
        toolAnswer: toolErrorAnswer(new Error('x'), { toolUse: { name: 'pay', toolUseId: 'p1', input: {} } } as ExecuteToolContext),
        modelAnswer: modelErrorAnswer(new Error('x'), {} as InvokeModelContext),
      };
      expect(mutableParts(handedOut, 'handedOut')).toEqual(['handedOut', 'handedOut.restored']);
    });
  });
});
