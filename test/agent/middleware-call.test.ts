import * as otel from '@opentelemetry/api';
import { BasicTracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, type Middleware } from '../../src/core/index';
import { tracing } from '../../src/middleware/index';
import {
  Agent,
  CompressContextStage,
  ContextBudgetKey,
  ExecuteToolStage,
  InvokeModelStage,
  type ModelResultEvent,
} from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { collect, user } from './fixtures';
import type { MiddlewareModelCall } from '../../src/agent/types/stages';

const usage = (input: number, output: number) => ({ inputTokens: input, outputTokens: output, totalTokens: input + output });

/** A bundle whose compression makes one middleware call with `call` (for every budget exceeded) and keeps the history. */
function summarising(call: () => MiddlewareModelCall, results: ModelResultEvent[] = []): Middleware {
  return {
    name: 'summarising',
    setup(registrar) {
      registrar.provide(ContextBudgetKey, { maxTokens: 0 });
      registrar.add(CompressContextStage.Wrap, async function* summarise(context, next) {
        results.push(await context.invokeModel(call()));
        yield* next();
      });
    },
  };
}

describe('invokeModel of CompressContextStage contexts', () => {
  describe('given a call it cannot make', () => {
    it.each<[string, unknown]>([
      ['no caller', { messages: [] }],
      ['an empty caller', { caller: '', messages: [] }],
      ['messages that are not an array', { caller: 'x', messages: 'hi' }],
    ])('rejects the run with ERR_INVALID_OPTIONS for %s', async (_label, call) => {
      const registry = new MiddlewareRegistry();
      registry.use(summarising(() => call as MiddlewareModelCall));
      const agent = new Agent({ model: new ScriptedModel([textTurn('ok')]), registry });
      const error = await agent.invoke('a').then(
        () => undefined,
        (caught: unknown) => caught as MiddlewareError,
      );
      expect([error?.code, error?.stage, MiddlewareError.isInstance(error)]).toEqual(['ERR_INVALID_OPTIONS', 'invokeModel', true]);
    });
  });

  describe('making a call', () => {
    it('goes through InvokeModelStage with its caller and no tools, leaves the model state and the stream alone, and resolves with the frozen result', async () => {
      const registry = new MiddlewareRegistry();
      const results: ModelResultEvent[] = [];
      registry.use(summarising(() => ({ caller: 'summary', messages: [user('Summarise.')] }), results));
      const seen: unknown[] = [];
      registry.add(
        InvokeModelStage.Input,
        (context) => (
          seen.push([context.caller ?? 'agent', context.toolSpecs.length, context.systemPrompt, 'modelState' in context]),
          context
        ),
      );
      const model = new ScriptedModel([
        { ...textTurn('S', { usage: usage(4, 2) }), stateWrites: { responseId: 'summary' } },
        textTurn('answer', { usage: usage(1, 1) }),
      ]);
      const agent = new Agent({
        model,
        registry,
        tools: [new ScriptedTool({ name: 'lookup' })],
        systemPrompt: 'Be brief.',
        modelState: { responseId: 'r0' },
      });
      const events = await collect(agent.stream('a'));
      const texts = events.flatMap((event) => (event.type === 'textDelta' ? [event.text] : []));
      expect([seen, texts, agent.modelState, results[0]?.message, Object.isFrozen(results[0]), model.calls[0]?.state]).toEqual([
        [
          ['summary', 0, [], false],
          ['agent', 1, [{ text: 'Be brief.' }], true],
        ],
        ['answer'],
        { responseId: 'r0' },
        { role: 'assistant', content: [{ type: 'text', text: 'S' }] },
        true,
        {},
      ]);
      expect(events.at(-1)).toEqual({
        type: 'agentResult',
        stopReason: 'endTurn',
        message: { role: 'assistant', content: [{ type: 'text', text: 'answer' }] },
        interrupts: [],
        usage: usage(1, 1),
        middlewareUsage: { summary: usage(4, 2) },
      });
    });

    it('passes an error of the call through unchanged', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(summarising(() => ({ caller: 'summary', messages: [user('Summarise.')] })));
      const failure = new Error('summary model down');
      const agent = new Agent({ model: new ScriptedModel([{ events: [], error: failure }]), registry });
      await expect(agent.invoke('a')).rejects.toBe(failure);
    });

    it('is named by its caller on the invoke span of tracing', async () => {
      const callers: unknown[] = [];
      const provider = new BasicTracerProvider({
        spanProcessors: [
          {
            onStart: () => undefined,
            onEnd: (span: ReadableSpan) => {
              if (span.attributes['staged.stage'] === 'invokeModel' && span.attributes['staged.phase'] === undefined)
                callers.push(span.attributes['staged.caller'] ?? 'none');
            },
            forceFlush: async () => undefined,
            shutdown: async () => undefined,
          },
        ],
      });
      const registry = new MiddlewareRegistry();
      registry.instrument(tracing({ api: otel, tracer: provider.getTracer('test') }));
      registry.use(summarising(() => ({ caller: 'summary', messages: [user('Summarise.')] })));
      await new Agent({ model: new ScriptedModel([textTurn('S'), textTurn('answer')]), registry }).invoke('a');
      expect(callers).toEqual(['summary', 'none']);
    });
  });
});

describe('usage a tool result reports', () => {
  /** A bundle whose ExecuteToolStage Output handler sets `usage` on every result. */
  const reporting = (reported: unknown): Middleware => ({
    name: 'reporting',
    setup: (registrar) =>
      void registrar.add(ExecuteToolStage.Output, (result) => result.replace({ ...result.value, usage: reported } as never)),
  });

  it("is summed under the tool's name in middlewareUsage", async () => {
    const registry = new MiddlewareRegistry();
    registry.use(reporting(usage(2, 3)));
    const model = new ScriptedModel([
      toolUseTurn([
        { name: 'ask', input: {} },
        { name: 'ask', input: {}, toolUseId: 'b' },
      ]),
      textTurn('ok'),
    ]);
    const result = await new Agent({ model, registry, tools: [new ScriptedTool({ name: 'ask' })] }).invoke('go');
    expect(result.middlewareUsage).toEqual({ ask: usage(4, 6) });
  });

  it.each<[string, unknown]>([
    ['a string', 'lots'],
    ['counts that are not numbers', { inputTokens: 1, outputTokens: '2', totalTokens: 3 }],
  ])('rejects the run with ERR_INVALID_OPTIONS when it is %s', async (_label, reported) => {
    const registry = new MiddlewareRegistry();
    registry.use(reporting(reported));
    const agent = new Agent({
      model: new ScriptedModel([toolUseTurn([{ name: 'ask', input: {} }])]),
      registry,
      tools: [new ScriptedTool({ name: 'ask' })],
    });
    const error = await agent.invoke('go').then(
      () => undefined,
      (caught: unknown) => caught as MiddlewareError,
    );
    expect([error?.code, error?.stage]).toEqual(['ERR_INVALID_OPTIONS', 'executeTool']);
  });

  it('is in the result of a run cancelled afterwards', async () => {
    const registry = new MiddlewareRegistry();
    registry.use(reporting(usage(1, 1)));
    let agent: Agent | undefined;
    const cancelling = new ScriptedTool({ name: 'stop', respond: () => (agent?.cancel(), 'stopping') });
    const model = new ScriptedModel([toolUseTurn([{ name: 'ask', input: {} }]), toolUseTurn([{ name: 'stop', input: {} }])]);
    agent = new Agent({ model, registry, tools: [new ScriptedTool({ name: 'ask' }), cancelling] });
    const result = await agent.invoke('go');
    expect([result.stopReason, result.middlewareUsage]).toEqual(['cancelled', { ask: usage(1, 1) }]);
  });
});
