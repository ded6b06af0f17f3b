import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/index';
import {
  Agent,
  AgentStreamStage,
  ExecuteToolStage,
  History,
  InvokeModelStage,
  createModelContext,
  errorResult,
  toModelRequest,
  toResultContent,
  toolErrorAnswer,
  modelErrorAnswer,
  TurnStage,
  mergeTurnAction,
  turnAction,
  type AgentEvent,
  type AgentSnapshot,
  type ExecuteToolContext,
  type InvokeModelContext,
  type Model,
  type ModelCallOptions,
  type ToolRunContext,
} from '../../src/agent/index';
import { failingTurn, ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { collect, user } from './fixtures';

/** Keys whose values the agent shares by reference on purpose (MW-105, MW-112): not walked. */
const SHARED = new Set(['error', 'invocationState', 'signal', 'interrupt', 'model', 'tool', 'reason']);

function isWalked(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return Array.isArray(value) || prototype === Object.prototype || prototype === null;
}

/**
 * Tries to change every array and plain object inside `value` (pushing onto an
 * array, adding a key to an object) and returns the paths of those that accepted it.
 */
function mutableParts(value: unknown, path: string, shared: ReadonlySet<string> = SHARED): string[] {
  if (!isWalked(value)) return [];
  const found: string[] = [];
  try {
    if (Array.isArray(value)) value.push('probe');
    else (value as Record<string, unknown>).probe = 'probe';
    found.push(path);
    if (Array.isArray(value)) value.pop();
    else delete (value as Record<string, unknown>).probe;
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  for (const [key, part] of Object.entries(value)) if (!shared.has(key)) found.push(...mutableParts(part, `${path}.${key}`, shared));
  return found;
}

describe('Agent', () => {
  describe('what the agent hands out', () => {
    it('keeps its pending interrupts when the caller empties a halted result (regression: interrupts.shift() broke resume)', async () => {
      const tool = new ScriptedTool({ name: 'pay', respond: (_input, context) => context.interrupt({ name: 'confirm' }).response });
      const agent = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'pay', input: {}, toolUseId: 'p1' }]), textTurn('paid')]),
        tools: [tool],
      });
      const halted = await agent.invoke('pay');
      expect(() => (halted.interrupts as unknown[]).shift()).toThrow(TypeError);
      expect(() => (agent.pendingInterrupts as unknown[]).shift()).toThrow(TypeError);
      expect((await agent.resume({ 'executeTool:p1:confirm': 'yes' })).stopReason).toEqual('endTurn');
    });

    it('goes on with a frozen copy of a result a handler made, so a consumer changing that event cannot change the history', async () => {
      const registry = new MiddlewareRegistry();
      const thrown = { code: 'E_PLAIN' };
      registry.add(InvokeModelStage.Wrap, async function* answerFromCache(context, next) {
        if (context.messages.length > 1) return yield* next();
        yield {
          type: 'modelResult',
          message: { role: 'assistant', content: [{ type: 'toolUse', toolUseId: 'c1', name: 'lookup', input: { q: 'a' } }] },
          stopReason: 'toolUse',
          usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        };
      });
      registry.add(ExecuteToolStage.Wrap, async function* answerForTool(context) {
        yield {
          type: 'toolResult',
          toolResult: {
            type: 'toolResult',
            toolUseId: context.toolUse.toolUseId,
            name: context.toolUse.name,
            status: 'error',
            content: [{ type: 'text', text: 'cached failure' }],
          },
          error: thrown,
        };
      });
      const agent = new Agent({ model: new ScriptedModel([textTurn('done')]), registry });
      const tampering: string[] = [];
      const seen: AgentEvent[] = [];
      for await (const event of agent.stream('go')) {
        seen.push(event);
        try {
          if (event.type === 'modelResult') (event.message.content as unknown[]).length = 0;
          if (event.type === 'toolResult') (event.toolResult.content as unknown[]).length = 0;
          if (event.type === 'modelResult' || event.type === 'toolResult') tampering.push(`${event.type} emptied`);
        } catch (error) {
          tampering.push(`${event.type} refused: ${(error as Error).name}`);
        }
      }
      const toolEvent = seen.find((event) => event.type === 'toolResult') as { error?: unknown };
      expect([tampering, toolEvent.error === thrown, agent.messages.slice(1, 3)]).toEqual([
        // The handlers' own events are theirs to share; the agent's own result is frozen.
        ['modelResult emptied', 'toolResult emptied', 'modelResult refused: TypeError'],
        true,
        [
          { role: 'assistant', content: [{ type: 'toolUse', toolUseId: 'c1', name: 'lookup', input: { q: 'a' } }] },
          {
            role: 'user',
            content: [
              { type: 'toolResult', toolUseId: 'c1', name: 'lookup', status: 'error', content: [{ type: 'text', text: 'cached failure' }] },
            ],
          },
        ],
      ]);
    });

    it('hands out every event, result, record and built value frozen', async () => {
      const registry = new MiddlewareRegistry();
      const received: { options?: ModelCallOptions<Record<string, unknown>>; toolContexts: ToolRunContext[]; answers: unknown[] } = {
        toolContexts: [],
        answers: [],
      };
      registry.add(ExecuteToolStage.Input, (context) => {
        received.answers.push(context.interrupt({ name: 'check', response: 'pre-supplied' }));
        return context;
      });
      const ok = new ScriptedTool({ name: 'ok', outcomes: [{ value: { list: [1, { deep: true }] } }] });
      const failing = new ScriptedTool({ name: 'failing', outcomes: [{ error: new Error('no') }] });
      const asking = new ScriptedTool({
        name: 'asking',
        respond: (_input, context) => {
          received.toolContexts.push(context);
          return context.interrupt({ name: 'confirm', reason: 'sure?' }).response;
        },
      });
      const scripted = new ScriptedModel([
        {
          ...toolUseTurn([
            { name: 'ok', input: { a: [1] } },
            { name: 'failing', input: {} },
            { name: 'missing', input: {} },
            { name: 'asking', input: {} },
          ]),
          stateWrites: { seen: [1] },
        },
        textTurn('done'),
        textTurn('never'),
      ]);
      const model: Model = {
        stream: (request, options) => {
          received.options = options;
          return scripted.stream(request, options);
        },
      };
      const agent = new Agent({
        model,
        registry,
        tools: [ok, failing, asking],
        systemPrompt: 'Be brief.',
        modelState: { start: { n: 1 } },
      });
      const halted = await collect(agent.stream('go'));
      const atHalt = { messages: agent.messages, modelState: agent.modelState, pendingInterrupts: agent.pendingInterrupts };
      const resumed = await collect(agent.stream(undefined, { interruptResponses: { 'executeTool:tool-4:confirm': 'yes' } }));
      let cancelledEvents: AgentEvent[] = [];
      const cancelling = new Agent({ model: new ScriptedModel([{ ...textTurn('x'), onCall: () => cancelling.cancel() }]) });
      cancelledEvents = await collect(cancelling.stream('go'));
      const history = new History([user('a')]);
      history.append(user('b'));
      const context = createModelContext({
        model,
        messages: [user('a')],
        systemPrompt: [{ text: 'sys' }],
        toolSpecs: [{ name: 'x', description: '', inputSchema: {} }],
        toolChoice: { type: 'auto' },
        invocationState: {},
      });
      const handedOut: Record<string, unknown> = {
        halted,
        atHalt,
        resumed,
        cancelledEvents,
        messages: agent.messages,
        modelState: agent.modelState,
        pendingInterrupts: agent.pendingInterrupts,
        modelCalls: scripted.calls,
        toolCalls: [ok.calls, failing.calls, asking.calls],
        toolSpec: ok.spec,
        history: history.messages,
        context,
        request: toModelRequest(context),
        errorResult: errorResult({ toolUseId: 't1', name: 'x' }, 'failed', new Error('kept as is')),
        resultContent: toResultContent({ list: [1, { deep: true }] }),
        toolContexts: received.toolContexts,
        interruptAnswers: received.answers,
        turns: [
          textTurn('a b', { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } }),
          toolUseTurn([{ name: 'x', input: { a: 1 } }]),
          failingTurn(new Error('x'), [{ type: 'messageStart', role: 'assistant' }]),
        ],
      };
      expect(halted.map((event) => event.type).filter((type) => type === 'toolResult').length).toEqual(3);
      expect(mutableParts(handedOut, 'handedOut')).toEqual([
        // The test's own containers, which show that the walk does find what it can change.
        'handedOut',
        'handedOut.halted',
        'handedOut.atHalt',
        'handedOut.resumed',
        'handedOut.cancelledEvents',
        'handedOut.toolCalls',
        'handedOut.toolContexts',
        'handedOut.interruptAnswers',
        'handedOut.turns',
      ]);
      expect(mutableParts(received.options, 'modelCallOptions', new Set([...SHARED, 'state']))).toEqual([]);
    });
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
