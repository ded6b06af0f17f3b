import * as otel from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { hedging } from '../agent/fixtures';
import { MiddlewareRegistry } from '../../src/index';
import {
  Agent,
  AgentStreamStage,
  ExecuteToolStage,
  InvokeModelStage,
  MemorySessionStore,
  type AgentEvent,
  type Model,
  type ModelStreamEvent,
  type Tool,
} from '../../src/agent/index';
import { retry, tracing, type TracingOptions } from '../../src/middleware/index';
import { failingTurn, ScriptedModel, ScriptedTool, textTurn, toolUseTurn, type ScriptedTurn } from '../../src/testing/index';

/** A scripted model that names itself, as a provider's model does. */
class NamedModel extends ScriptedModel {
  readonly modelId = 'test-model';
}

function recording() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('test') };
}

/** A finished span as the tests compare it: everything a backend reads, the parent by name. */
function tree(spans: readonly ReadableSpan[]) {
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
  return spans.map((span) => ({
    name: span.name,
    parent: span.parentSpanContext === undefined ? undefined : byId.get(span.parentSpanContext.spanId)?.name,
    kind: span.kind,
    status: span.status.code,
    attributes: span.attributes,
    events: span.events.map((event) => [event.name, event.attributes?.['exception.message']]),
  }));
}

/** The library's own attributes of a layer span (MW-093), the clock standing still. */
function layer(stage: string, handler: string, position: number, attempt: number, events: number) {
  return {
    'staged.stage': stage,
    'staged.phase': handler === 'terminal' ? 'terminal' : 'wrap',
    'staged.handler': handler,
    'staged.order': 0,
    'staged.position': position,
    'staged.attempt': attempt,
    'staged.events': events,
    'staged.active_ms': 0,
    'staged.self_ms': 0,
  };
}

const { INTERNAL, CLIENT } = otel.SpanKind;
const { UNSET, ERROR } = otel.SpanStatusCode;

/** How the application hands tracing its OpenTelemetry: the span tree must be the same every way. */
const setups = [
  {
    setup: 'api and tracer, with a context manager',
    contextManager: true,
    options: (tracer: otel.Tracer): TracingOptions => ({ api: otel, tracer, now: () => 0 }),
  },
  {
    setup: 'api and tracer, no context manager',
    contextManager: false,
    options: (tracer: otel.Tracer): TracingOptions => ({ api: otel, tracer, now: () => 0 }),
  },
  { setup: 'tracer only', contextManager: false, options: (tracer: otel.Tracer): TracingOptions => ({ tracer, now: () => 0 }) },
];

function useContextManager(): void {
  otel.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

afterEach(() => {
  otel.context.disable();
});

async function drain(events: AsyncIterable<AgentEvent>): Promise<void> {
  for await (const _event of events);
}

describe('tracing', () => {
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

  describe('when an error crosses several spans', () => {
    it.each(setups)(
      'records the exception once, on the innermost span, and marks every span it crossed ERROR ($setup)',
      async ({ contextManager, options }) => {
        if (contextManager) useContextManager();
        const { exporter, tracer } = recording();
        const registry = new MiddlewareRegistry();
        registry.instrument(tracing(options(tracer)));
        const down = new Error('model down');
        const agent = new Agent({ model: new NamedModel([failingTurn(down)]), registry });
        await expect(agent.invoke('Hi')).rejects.toBe(down);
        expect(
          tree(exporter.getFinishedSpans()).map(({ name, parent, status, attributes, events }) => [
            name,
            parent,
            status,
            attributes['error.type'],
            events,
          ]),
        ).toEqual([
          ['invokeModel terminal', 'chat test-model', ERROR, undefined, [['exception', 'model down']]],
          ['chat test-model', 'agentStream terminal', ERROR, 'Error', []],
          ['agentStream terminal', 'invoke_agent agent', ERROR, undefined, []],
          ['invoke_agent agent', undefined, ERROR, 'Error', []],
        ]);
      },
    );
  });

  describe('when a tool asks a human (an interrupt)', () => {
    it('marks the spans it crossed interrupted, never ERROR, with no exception event', async () => {
      const { exporter, tracer } = recording();
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ tracer, now: () => 0 }));
      const approve: Tool = {
        spec: { name: 'approve', description: 'asks', inputSchema: { type: 'object' } },
        run: (_input, context) => context.interrupt({ name: 'ok?' }),
      };
      const agent = new Agent({
        model: new NamedModel([toolUseTurn([{ name: 'approve', input: {}, toolUseId: 'call-1' }])]),
        tools: [approve],
        registry,
      });
      const result = await agent.invoke('Go');
      expect(result.stopReason).toBe('interrupt');
      const spans = tree(exporter.getFinishedSpans()).filter((span) => span.attributes['staged.stage'] === 'executeTool');
      expect(
        spans.map(({ name, status, attributes, events }) => [
          name,
          status,
          attributes['staged.interrupted'],
          attributes['error.type'],
          events,
        ]),
      ).toEqual([
        ['executeTool terminal', UNSET, true, undefined, []],
        ['execute_tool approve', UNSET, true, undefined, []],
      ]);
      const agentSpan = tree(exporter.getFinishedSpans()).find((span) => span.name === 'invoke_agent agent');
      expect([agentSpan?.status, agentSpan?.events]).toEqual([UNSET, []]);
    });
  });

  describe('two agent runs at once, traced by one tracing instance', () => {
    it.each(setups)("nests each run's model and tool spans under its own run ($setup)", async ({ contextManager, options }) => {
      if (contextManager) useContextManager();
      const { exporter, tracer } = recording();
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing(options(tracer)));
      const agentNamed = (name: string) =>
        new Agent({
          name,
          model: new NamedModel([toolUseTurn([{ name: 'weather', input: {} }]), textTurn('Done.')]),
          tools: [new ScriptedTool({ name: 'weather', outcomes: [{ value: name }] })],
          registry,
        });
      await Promise.all([agentNamed('first').invoke('Go'), agentNamed('second').invoke('Go')]);
      const spans = exporter.getFinishedSpans();
      const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
      /** The name of the root span above a span. */
      const rootOf = (span: ReadableSpan): string => {
        let current = span;
        for (
          let parent = byId.get(current.parentSpanContext?.spanId ?? '');
          parent !== undefined;
          parent = byId.get(current.parentSpanContext?.spanId ?? '')
        )
          current = parent;
        return current.name;
      };
      const roots = (name: string) =>
        spans
          .filter((span) => span.name === name)
          .map(rootOf)
          .sort();
      expect([roots('chat test-model'), roots('execute_tool weather'), roots('turn')]).toEqual([
        ['invoke_agent first', 'invoke_agent first', 'invoke_agent second', 'invoke_agent second'],
        ['invoke_agent first', 'invoke_agent second'],
        ['invoke_agent first', 'invoke_agent first', 'invoke_agent second', 'invoke_agent second'],
      ]);
    });
  });

  describe('a run whose AgentStreamStage handler runs two terminal calls at once', () => {
    /** Each chat and turn span with its parent span and the parent's attempt number. */
    async function nestedParents(options: TracingOptions, exporter: InMemorySpanExporter): Promise<string[]> {
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing(options));
      registry.add(AgentStreamStage.Wrap, hedging());
      await new Agent({ model: new NamedModel([textTurn('one'), textTurn('two')]), registry }).invoke('Go');
      const spans = exporter.getFinishedSpans();
      const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
      const parentOf = (span: ReadableSpan): string => {
        const parent = byId.get(span.parentSpanContext?.spanId ?? '');
        return `${parent?.name ?? 'none'}#${String(parent?.attributes['staged.attempt'])}`;
      };
      return spans
        .filter((span) => span.name === 'chat test-model' || span.name === 'turn')
        .map((span) => `${span.name} <- ${parentOf(span)}`);
    }

    it('with a context manager, nests each model call and turn under the terminal call that made it', async () => {
      useContextManager();
      const { exporter, tracer } = recording();
      // Spans in the order they end: each terminal call's model call, then each one's turn decision.
      expect(await nestedParents({ api: otel, tracer }, exporter)).toEqual([
        'chat test-model <- agentStream terminal#1',
        'chat test-model <- agentStream terminal#2',
        'turn <- agentStream terminal#1',
        'turn <- agentStream terminal#2',
      ]);
    });

    it('without one, nests each invoke under the terminal call of its run opened last when the invoke starts', async () => {
      const { exporter, tracer } = recording();
      // The first model call starts before the second terminal call opens; both turn decisions start after it did.
      expect(await nestedParents({ tracer }, exporter)).toEqual([
        'chat test-model <- agentStream terminal#1',
        'chat test-model <- agentStream terminal#2',
        'turn <- agentStream terminal#2',
        'turn <- agentStream terminal#2',
      ]);
    });
  });

  describe('a failed standard-stage invoke', () => {
    /** A model whose stream() breaks its contract: the kit fails the call with a MiddlewareError. */
    const brokenModel: Model = { modelId: 'test-model', stream: () => null as unknown as AsyncIterable<ModelStreamEvent> };
    it.each([
      { thrown: 'a MiddlewareError', model: () => brokenModel, type: 'ERR_INVALID_HANDLER' },
      { thrown: 'a TypeError', model: () => new NamedModel([failingTurn(new TypeError('bad'))]), type: 'TypeError' },
      { thrown: 'a string', model: () => new NamedModel([failingTurn('plain')]), type: '_OTHER' },
      {
        thrown: 'an error with a code',
        model: () => new NamedModel([failingTurn(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))]),
        type: 'ECONNRESET',
      },
    ])('sets error.type from $thrown', async ({ model, type }) => {
      const { exporter, tracer } = recording();
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ tracer }));
      await expect(new Agent({ model: model(), registry }).invoke('Hi')).rejects.toBeDefined();
      const chat = exporter.getFinishedSpans().find((span) => span.name === 'chat test-model');
      expect([chat?.status.code, chat?.attributes['error.type']]).toEqual([ERROR, type]);
    });
  });

  describe('a context whose getters throw', () => {
    it('leaves the attribute out and runs the invoke unchanged', async () => {
      const { exporter, tracer } = recording();
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ tracer }));
      const model = new ScriptedModel([textTurn('Hi.')]);
      Object.defineProperty(model, 'modelId', {
        get() {
          throw new Error('no name');
        },
      });
      const result = await new Agent({ model, registry }).invoke('Hi');
      expect(result.stopReason).toBe('endTurn');
      const chat = exporter.getFinishedSpans().find((span) => span.attributes['gen_ai.operation.name'] === 'chat');
      expect([chat?.name, chat?.attributes['gen_ai.request.model']]).toEqual(['chat', undefined]);
    });
  });

  describe('when an Input handler asks a human about the whole run', () => {
    it('records the handler event and the agent span as interrupted, with no exception', async () => {
      const { exporter, tracer } = recording();
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ tracer }));
      registry.add(AgentStreamStage.Input, function askFirst(context) {
        context.interrupt({ name: 'proceed' });
        return context;
      });
      const result = await new Agent({ model: new NamedModel([textTurn('never')]), registry }).invoke('Go');
      expect(result.stopReason).toBe('interrupt');
      const [agentSpan] = exporter.getFinishedSpans();
      expect([
        agentSpan?.name,
        agentSpan?.status.code,
        agentSpan?.attributes['staged.interrupted'],
        agentSpan?.events.map((event) => [event.name, event.attributes]),
      ]).toEqual([
        'invoke_agent agent',
        UNSET,
        true,
        [['input askFirst', { 'staged.phase': 'input', 'staged.handler': 'askFirst', 'staged.order': 0, 'staged.interrupted': true }]],
      ]);
    });
  });

  describe('a model without a modelId', () => {
    it('names the span chat alone and sets no request model', async () => {
      const { exporter, tracer } = recording();
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ tracer }));
      await new Agent({ model: new ScriptedModel([textTurn('Hi.')]), registry }).invoke('Hi');
      const chat = exporter.getFinishedSpans().find((span) => span.attributes['gen_ai.operation.name'] === 'chat');
      expect([chat?.name, 'gen_ai.request.model' in (chat?.attributes ?? {})]).toEqual(['chat', false]);
    });
  });

  describe('with a context manager registered', () => {
    it("nests the application's own spans under the layer whose code started them, and leaves the consumer's context alone between events", async () => {
      useContextManager();
      const { exporter, tracer } = recording();
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ api: otel, tracer }));
      registry.add(AgentStreamStage.Wrap, async function* audit(context, next) {
        tracer.startSpan('audit start').end();
        for await (const event of next(context)) {
          yield event;
          tracer.startSpan('audit after event').end();
        }
      });
      const lookup: Tool = {
        spec: { name: 'lookup', description: 'looks up', inputSchema: { type: 'object' } },
        run: async () => {
          await Promise.resolve();
          tracer.startSpan('database query').end();
          return 'found';
        },
      };
      const agent = new Agent({
        model: new NamedModel([toolUseTurn([{ name: 'lookup', input: {} }]), textTurn('Done.')]),
        tools: [lookup],
        registry,
      });
      const caller = tracer.startSpan('request');
      const seenByConsumer = new Set<string | undefined>();
      await otel.context.with(otel.trace.setSpan(otel.context.active(), caller), async () => {
        for await (const _event of agent.stream('Find it')) {
          seenByConsumer.add((otel.trace.getActiveSpan() as unknown as ReadableSpan | undefined)?.name);
          await Promise.resolve();
        }
      });
      caller.end();
      const parents = tree(exporter.getFinishedSpans());
      const parentOf = (name: string): (string | undefined)[] => parents.filter((span) => span.name === name).map((span) => span.parent);
      expect(parentOf('database query')).toEqual(['executeTool terminal']);
      expect(parentOf('audit start')).toEqual(['agentStream audit']);
      expect(new Set(parentOf('audit after event'))).toEqual(new Set(['agentStream audit']));
      expect(parentOf('invoke_agent agent')).toEqual(['request']);
      expect(seenByConsumer).toEqual(new Set(['request']));
    });
  });

  describe('without a context manager, a span the application starts inside a handler', () => {
    it('has no parent, while the library spans still nest', async () => {
      const { exporter, tracer } = recording();
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ api: otel, tracer }));
      registry.add(ExecuteToolStage.Wrap, async function* mine(context, next) {
        tracer.startSpan('mine').end();
        yield* next(context);
      });
      await drain(
        new Agent({
          model: new NamedModel([toolUseTurn([{ name: 'weather', input: {} }]), textTurn('Done.')]),
          tools: [new ScriptedTool({ name: 'weather', outcomes: [{ value: 1 }] })],
          registry,
        }).stream('Go'),
      );
      const spans = tree(exporter.getFinishedSpans());
      expect(
        spans
          .filter((span) => ['mine', 'executeTool mine', 'execute_tool weather'].includes(span.name))
          .map((span) => [span.name, span.parent]),
      ).toEqual([
        ['mine', undefined],
        ['executeTool mine', 'execute_tool weather'],
        ['execute_tool weather', 'agentStream terminal'],
      ]);
    });
  });
});
