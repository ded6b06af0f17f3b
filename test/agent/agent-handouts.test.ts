import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import {
  Agent,
  ExecuteToolStage,
  History,
  InvokeModelStage,
  createModelContext,
  errorResult,
  toModelRequest,
  toResultContent,
  type AgentEvent,
  type Model,
  type ModelCallOptions,
  type ToolRunContext,
} from '../../src/agent/index';
import { failingTurn, ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { collect, user } from './fixtures';
import { mutableParts, SHARED } from './mutable-parts';

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
  });
});
