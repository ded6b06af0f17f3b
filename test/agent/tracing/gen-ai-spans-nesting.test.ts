import * as otel from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { hedging } from '../fixtures';
import { MiddlewareRegistry } from '../../../src/core/index';
import { Agent, AgentStreamStage, ExecuteToolStage, genAiSpans, subagent, type Tool } from '../../../src/agent/index';
import { tracing, type TracingOptions } from '../../../src/middleware/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../../src/testing/index';
import { NamedModel, recording, tree, setups, useContextManager, drain } from './gen-ai-recording';

afterEach(() => {
  otel.context.disable();
});

describe('genAiSpans', () => {
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

  describe('a run that delegates to a sub-agent', () => {
    it.each(setups)("nests the sub-agent's run under the parent's tool call ($setup)", async ({ contextManager, options }) => {
      if (contextManager) useContextManager();
      const { exporter, tracer } = recording();
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing(options(tracer)));
      registry.use(subagent({ name: 'helper', description: 'Helps.', model: new ScriptedModel([textTurn('ok')]) }));
      const model = new NamedModel([toolUseTurn([{ name: 'helper', input: { task: 'go' }, toolUseId: 'h1' }]), textTurn('Done.')]);
      await new Agent({ name: 'boss', model, registry }).invoke('Go');
      const spans = exporter.getFinishedSpans();
      const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
      /** The names from a span up to its root. */
      const path = (name: string): string[] => {
        const names: string[] = [];
        for (let span = spans.find((each) => each.name === name); span !== undefined; span = byId.get(span.parentSpanContext?.spanId ?? ''))
          names.push(span.name);
        return names;
      };
      expect(path('chat')).toEqual([
        'chat',
        'agentStream terminal',
        'invoke_agent helper',
        'executeTool terminal',
        'executeTool subagent',
        'execute_tool helper',
        'agentStream terminal',
        'invoke_agent boss',
      ]);
    });
  });

  describe('a run whose AgentStreamStage handler runs two terminal calls at once', () => {
    /** Each chat and turn span with its parent span and the parent's attempt number. */
    async function nestedParents(options: TracingOptions, exporter: InMemorySpanExporter): Promise<string[]> {
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ ...options, conventions: [genAiSpans] }));
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

  describe('with a context manager registered', () => {
    it("nests the application's own spans under the layer whose code started them, and leaves the consumer's context alone between events", async () => {
      useContextManager();
      const { exporter, tracer } = recording();
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ api: otel, tracer, conventions: [genAiSpans] }));
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
      registry.instrument(tracing({ api: otel, tracer, conventions: [genAiSpans] }));
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
