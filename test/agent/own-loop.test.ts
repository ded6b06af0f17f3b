import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { AgentStreamStage, ExecuteToolStage, InvokeModelStage, TurnStage, genAiSpans, maxTurns } from '../../src/agent/index';
import { tracing } from '../../src/middleware/index';
import { ScriptedModel, ScriptedTool, failingTurn, textTurn, toolUseTurn } from '../../src/testing/index';
import { ownLoop, type Conversation } from '../../examples/own-loop';
import { recordingTracer, tree } from '../middleware/recording-tracer';
import { ZERO, assistant, collect, user } from './fixtures';

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
        {
          ...toolUseTurn([
            { name: 'clock', input: {}, toolUseId: 'c1' },
            { name: 'ghost', input: {}, toolUseId: 'g1' },
          ]),
          stateWrites: { calls: 1 },
        },
        textTurn('it is noon'),
      ]);
      const conversation: Conversation = { messages: [], modelState: {}, systemPrompt: 'You are terse.' };
      const events = await collect(
        ownLoop(registry, model, [new ScriptedTool({ name: 'clock', outcomes: [{ value: '12:00' }] })], conversation, 'time?'),
      );
      const history = conversation.messages;
      expect(events.flatMap((event) => (event.type === 'textDelta' ? [event.text] : [])).join('')).toEqual('it is noon');
      expect(seenTools).toEqual(['clock', 'ghost']);
      expect(history).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'time?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'toolUse', toolUseId: 'c1', name: 'clock', input: {} },
            { type: 'toolUse', toolUseId: 'g1', name: 'ghost', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'toolResult', toolUseId: 'c1', name: 'clock', status: 'success', content: [{ type: 'text', text: '12:00' }] },
            {
              type: 'toolResult',
              toolUseId: 'g1',
              name: 'ghost',
              status: 'error',
              content: [{ type: 'text', text: 'Unknown tool "ghost": the agent has no tool by that name.' }],
            },
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

  describe('with a TurnStage handler that stops it', () => {
    it('stops after the turn the handler names, keeps that turn, and reports who stopped it and the summed usage', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(TurnStage.Wrap, maxTurns(2));
      const usage = { inputTokens: 5, outputTokens: 1, totalTokens: 6 };
      const model = new ScriptedModel([
        toolUseTurn([{ name: 'clock', input: {}, toolUseId: 'c1' }], { usage }),
        toolUseTurn([{ name: 'clock', input: {}, toolUseId: 'c2' }], { usage }),
        textTurn('never reached'),
      ]);
      const conversation: Conversation = { messages: [], modelState: {} };
      const events = await collect(
        ownLoop(registry, model, [new ScriptedTool({ name: 'clock', outcomes: [{ value: 'noon' }] })], conversation, 'time?'),
      );
      expect({ result: events[events.length - 1], calls: model.calls.length, history: conversation.messages.length }).toEqual({
        result: {
          type: 'agentResult',
          stopReason: 'stopped',
          message: { role: 'assistant', content: [{ type: 'toolUse', toolUseId: 'c2', name: 'clock', input: {} }] },
          interrupts: [],
          usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
          stoppedBy: { handler: 'maxTurns', reason: 'reached 2 turns' },
        },
        calls: 2,
        history: 5,
      });
    });
  });

  describe("traced with the agent kit's span conventions", () => {
    it('is one trace per run: every model, tool and turn span under the AgentStreamStage terminal of invoke_agent', async () => {
      const { exporter, tracer } = recordingTracer();
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ tracer, now: () => 0, conventions: [genAiSpans] }));
      const model = new ScriptedModel([toolUseTurn([{ name: 'clock', input: {}, toolUseId: 'c1' }]), textTurn('noon')]);
      const conversation: Conversation = { messages: [], modelState: {} };
      await collect(ownLoop(registry, model, [new ScriptedTool({ name: 'clock' })], conversation, 'time?'));
      const spans = exporter.getFinishedSpans();
      expect({
        traces: new Set(spans.map((span) => span.spanContext().traceId)).size,
        parents: tree(spans).map(({ name, parent }) => `${name} <- ${parent ?? 'none'}`),
      }).toEqual({
        traces: 1,
        parents: [
          'invokeModel terminal <- chat',
          'chat <- agentStream terminal',
          'executeTool terminal <- execute_tool clock',
          'execute_tool clock <- agentStream terminal',
          'turn terminal <- turn',
          'turn <- agentStream terminal',
          'invokeModel terminal <- chat',
          'chat <- agentStream terminal',
          'turn terminal <- turn',
          'turn <- agentStream terminal',
          'agentStream terminal <- invoke_agent',
          'invoke_agent <- none',
        ],
      });
    });
  });

  describe('with a tool call that asks a question nobody answered', () => {
    it("runs the turn's other calls, halts the run with the question and keeps the halted turn for snapshotLoop", async () => {
      const ask = new ScriptedTool({
        name: 'rm',
        respond: (_input, context) => (context.interrupt({ name: 'approve' }).response === true ? 'gone' : 'kept'),
      });
      const toolUses = [
        { name: 'rm', input: {}, toolUseId: 'r1' },
        { name: 'clock', input: {}, toolUseId: 'c1' },
      ];
      const model = new ScriptedModel([toolUseTurn(toolUses), textTurn('never reached')]);
      const conversation: Conversation = { messages: [], modelState: {} };
      const clock = new ScriptedTool({ name: 'clock', outcomes: [{ value: 'noon' }] });
      const events = await collect(ownLoop(new MiddlewareRegistry(), model, [ask, clock], conversation, 'tidy'));
      const message = { role: 'assistant', content: toolUses.map((toolUse) => ({ type: 'toolUse', ...toolUse })) };
      const question = { id: 'executeTool:r1:approve', name: 'approve' };
      const noon = { type: 'toolResult', toolUseId: 'c1', name: 'clock', status: 'success', content: [{ type: 'text', text: 'noon' }] };
      expect({
        types: events.map((event) => event.type).filter((type) => type === 'interrupt' || type === 'toolResult' || type === 'agentResult'),
        result: events[events.length - 1],
        calls: model.calls.length,
        conversation,
      }).toEqual({
        types: ['interrupt', 'toolResult', 'agentResult'],
        result: {
          type: 'agentResult',
          stopReason: 'interrupt',
          message,
          interrupts: [question],
          usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        },
        calls: 1,
        conversation: {
          messages: [{ role: 'user', content: [{ type: 'text', text: 'tidy' }] }, message],
          modelState: {},
          halted: { interrupts: [question], message, results: [noon] },
        },
      });
    });
  });

  describe('with a model that fails', () => {
    it('leaves the conversation as it was and rejects with the very error', async () => {
      const failure = new Error('model down');
      const model = new ScriptedModel([failingTurn(failure)]);
      const before: Conversation = { messages: [], modelState: { kept: true }, systemPrompt: undefined };
      const conversation = { ...before };
      await expect(collect(ownLoop(new MiddlewareRegistry(), model, [], conversation, 'hello'))).rejects.toBe(failure);
      expect(conversation).toEqual(before);
    });
  });

  describe('with a run that fails after a Wrap handler ended it and its result was delivered', () => {
    it('leaves the conversation as it was, the halted turn of an earlier run included', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Wrap, async function* failAfterResult(_context, next) {
        yield* next();
        yield { type: 'textDelta', text: 'late' };
        throw new Error('failed after the result');
      });
      registry.add(AgentStreamStage.Wrap, async function* stopAfterModel(_context, next) {
        for await (const event of next()) {
          yield event;
          if (event.type === 'modelResult') break;
        }
        yield { type: 'agentResult', stopReason: 'endTurn', message: undefined, interrupts: [], usage: ZERO };
      });
      const halted = {
        interrupts: [{ id: 'executeTool:t1:approve', name: 'approve', reason: undefined }],
        message: assistant('Asked.'),
        results: [],
      };
      const conversation: Conversation = { messages: [user('earlier')], modelState: { n: 1 }, halted };
      const before = { ...conversation };
      const kept: unknown[] = [];
      const run = ownLoop(registry, new ScriptedModel([textTurn('hi')]), [], conversation, 'hello');
      const failure = await (async () => {
        for await (const event of run) if (event.type === 'agentResult') kept.push(conversation.messages.length);
      })().then(
        () => undefined,
        (error: unknown) => (error as Error).message,
      );
      expect({ failure, kept, conversation }).toEqual({ failure: 'failed after the result', kept: [2], conversation: before });
    });
  });
});
