import * as otel from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../../src/core/index';
import { Agent, AgentStreamStage, genAiSpans, type Model, type ModelStreamEvent, type Tool } from '../../../src/agent/index';
import { tracing } from '../../../src/middleware/index';
import { failingTurn, ScriptedModel, textTurn, toolUseTurn } from '../../../src/testing/index';
import { NamedModel, recording, tree, UNSET, ERROR, setups, useContextManager } from './gen-ai-recording';

afterEach(() => {
  otel.context.disable();
});

describe('genAiSpans', () => {
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
      registry.instrument(tracing({ tracer, now: () => 0, conventions: [genAiSpans] }));
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
      registry.instrument(tracing({ tracer, conventions: [genAiSpans] }));
      await expect(new Agent({ model: model(), registry }).invoke('Hi')).rejects.toBeDefined();
      const chat = exporter.getFinishedSpans().find((span) => span.name === 'chat test-model');
      expect([chat?.status.code, chat?.attributes['error.type']]).toEqual([ERROR, type]);
    });
  });

  describe('a context whose getters throw', () => {
    it('leaves the attribute out and runs the invoke unchanged', async () => {
      const { exporter, tracer } = recording();
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ tracer, conventions: [genAiSpans] }));
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
      registry.instrument(tracing({ tracer, conventions: [genAiSpans] }));
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
      registry.instrument(tracing({ tracer, conventions: [genAiSpans] }));
      await new Agent({ model: new ScriptedModel([textTurn('Hi.')]), registry }).invoke('Hi');
      const chat = exporter.getFinishedSpans().find((span) => span.attributes['gen_ai.operation.name'] === 'chat');
      expect([chat?.name, 'gen_ai.request.model' in (chat?.attributes ?? {})]).toEqual(['chat', false]);
    });
  });
});
