import * as otel from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../../src/core/index';
import { Agent, InvokeModelStage, MemorySessionStore, type Tool } from '../../../src/agent/index';
import { retry, tracing } from '../../../src/middleware/index';
import { failingTurn, ScriptedTool, textTurn, toolUseTurn, type ScriptedTurn } from '../../../src/testing/index';
import { NamedModel, recording, tree, layer, INTERNAL, CLIENT, UNSET, ERROR, setups, useContextManager } from './gen-ai-recording';

afterEach(() => {
  otel.context.disable();
});

describe('genAiSpans', () => {
  describe('an agent run with a retried model call and two tool calls, one of which throws', () => {
    const overloaded = new Error('overloaded');
    const broke = new Error('tool broke');
    const script = (): ScriptedTurn[] => [
      failingTurn(overloaded),
      toolUseTurn(
        [
          { name: 'weather', input: { city: 'Oslo' }, toolUseId: 'call-1' },
          { name: 'explode', input: {}, toolUseId: 'call-2' },
        ],
        { usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } },
      ),
      textTurn('Done.', { usage: { inputTokens: 20, outputTokens: 3, totalTokens: 23 } }),
    ];
    const tools = (): Tool[] => [
      new ScriptedTool({ name: 'weather', outcomes: [{ value: 'sunny' }] }),
      new ScriptedTool({ name: 'explode', outcomes: [{ error: broke }] }),
    ];

    it.each(setups)(
      'is one span tree in GenAI terms, the exception recorded where it was thrown ($setup)',
      async ({ contextManager, options }) => {
        if (contextManager) useContextManager();
        const { exporter, tracer } = recording();
        const registry = new MiddlewareRegistry();
        registry.instrument(tracing(options(tracer)));
        registry.add(InvokeModelStage.Wrap, retry({ backoff: () => 0 }));
        const agent = new Agent({
          name: 'assistant',
          model: new NamedModel(script()),
          tools: tools(),
          registry,
          session: { store: new MemorySessionStore(), id: 'chat-1' },
        });
        await agent.invoke('Weather in Oslo?');

        const chat = {
          'staged.stage': 'invokeModel',
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'test-model',
          'gen_ai.conversation.id': 'chat-1',
        };
        expect(tree(exporter.getFinishedSpans())).toEqual([
          {
            name: 'invokeModel terminal',
            parent: 'invokeModel retry',
            kind: INTERNAL,
            status: ERROR,
            attributes: layer('invokeModel', 'terminal', 1, 1, 0),
            events: [['exception', 'overloaded']],
          },
          {
            name: 'invokeModel terminal',
            parent: 'invokeModel retry',
            kind: INTERNAL,
            status: UNSET,
            attributes: layer('invokeModel', 'terminal', 1, 2, 8),
            events: [],
          },
          {
            name: 'invokeModel retry',
            parent: 'chat test-model',
            kind: INTERNAL,
            status: UNSET,
            attributes: layer('invokeModel', 'retry', 0, 1, 8),
            events: [],
          },
          {
            name: 'chat test-model',
            parent: 'agentStream terminal',
            kind: CLIENT,
            status: UNSET,
            attributes: {
              ...chat,
              'gen_ai.usage.input_tokens': 10,
              'gen_ai.usage.output_tokens': 5,
              'gen_ai.response.finish_reasons': ['toolUse'],
            },
            events: [],
          },
          {
            name: 'executeTool terminal',
            parent: 'execute_tool weather',
            kind: INTERNAL,
            status: UNSET,
            attributes: layer('executeTool', 'terminal', 0, 1, 1),
            events: [],
          },
          {
            name: 'execute_tool weather',
            parent: 'agentStream terminal',
            kind: INTERNAL,
            status: UNSET,
            attributes: {
              'staged.stage': 'executeTool',
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': 'weather',
              'gen_ai.tool.call.id': 'call-1',
            },
            events: [],
          },
          {
            name: 'executeTool terminal',
            parent: 'execute_tool explode',
            kind: INTERNAL,
            status: UNSET,
            attributes: layer('executeTool', 'terminal', 0, 1, 1),
            events: [],
          },
          {
            name: 'execute_tool explode',
            parent: 'agentStream terminal',
            kind: INTERNAL,
            status: ERROR,
            attributes: {
              'staged.stage': 'executeTool',
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': 'explode',
              'gen_ai.tool.call.id': 'call-2',
              'error.type': 'Error',
            },
            events: [['exception', 'tool broke']],
          },
          {
            name: 'turn terminal',
            parent: 'turn',
            kind: INTERNAL,
            status: UNSET,
            attributes: layer('turn', 'terminal', 0, 1, 1),
            events: [],
          },
          {
            name: 'turn',
            parent: 'agentStream terminal',
            kind: INTERNAL,
            status: UNSET,
            attributes: { 'staged.stage': 'turn' },
            events: [],
          },
          {
            name: 'invokeModel terminal',
            parent: 'invokeModel retry',
            kind: INTERNAL,
            status: UNSET,
            attributes: layer('invokeModel', 'terminal', 1, 1, 5),
            events: [],
          },
          {
            name: 'invokeModel retry',
            parent: 'chat test-model',
            kind: INTERNAL,
            status: UNSET,
            attributes: layer('invokeModel', 'retry', 0, 1, 5),
            events: [],
          },
          {
            name: 'chat test-model',
            parent: 'agentStream terminal',
            kind: CLIENT,
            status: UNSET,
            attributes: {
              ...chat,
              'gen_ai.usage.input_tokens': 20,
              'gen_ai.usage.output_tokens': 3,
              'gen_ai.response.finish_reasons': ['endTurn'],
            },
            events: [],
          },
          {
            name: 'turn terminal',
            parent: 'turn',
            kind: INTERNAL,
            status: UNSET,
            attributes: layer('turn', 'terminal', 0, 1, 1),
            events: [],
          },
          {
            name: 'turn',
            parent: 'agentStream terminal',
            kind: INTERNAL,
            status: UNSET,
            attributes: { 'staged.stage': 'turn' },
            events: [],
          },
          {
            name: 'agentStream terminal',
            parent: 'invoke_agent assistant',
            kind: INTERNAL,
            status: UNSET,
            attributes: layer('agentStream', 'terminal', 0, 1, 16),
            events: [],
          },
          {
            name: 'invoke_agent assistant',
            parent: undefined,
            kind: INTERNAL,
            status: UNSET,
            attributes: {
              'staged.stage': 'agentStream',
              'gen_ai.operation.name': 'invoke_agent',
              'gen_ai.agent.name': 'assistant',
              'gen_ai.conversation.id': 'chat-1',
              'gen_ai.usage.input_tokens': 30,
              'gen_ai.usage.output_tokens': 8,
            },
            events: [],
          },
        ]);
        // One trace: every span shares the agent span's trace id.
        expect(new Set(exporter.getFinishedSpans().map((span) => span.spanContext().traceId)).size).toBe(1);
      },
    );
  });

  describe('when tracing is not given it', () => {
    it("names each invoke span after its stage, sets no GenAI attribute and nests no invoke under the run's span", async () => {
      const { exporter, tracer } = recording();
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ tracer, now: () => 0 }));
      const agent = new Agent({ name: 'assistant', model: new NamedModel([textTurn('Hi.')]), registry });
      await agent.invoke('Hello');

      const spans = exporter.getFinishedSpans();
      const invokeSpans = tree(spans).filter((span) => span.attributes['staged.phase'] === undefined);
      expect([invokeSpans, spans.some((span) => Object.keys(span.attributes).some((key) => key.startsWith('gen_ai.')))]).toEqual([
        [
          {
            name: 'invokeModel',
            parent: undefined,
            kind: INTERNAL,
            status: UNSET,
            attributes: { 'staged.stage': 'invokeModel' },
            events: [],
          },
          { name: 'turn', parent: undefined, kind: INTERNAL, status: UNSET, attributes: { 'staged.stage': 'turn' }, events: [] },
          {
            name: 'agentStream',
            parent: undefined,
            kind: INTERNAL,
            status: UNSET,
            attributes: { 'staged.stage': 'agentStream' },
            events: [],
          },
        ],
        false,
      ]);
    });
  });
});
