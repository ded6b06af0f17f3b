/**
 * What a framework author does on the Vercel AI SDK, written as that user
 * writes it, with no annotation on inline terminals and no glue beyond the
 * adapter: an agent on an AI SDK model (`MockLanguageModelV3` standing in for
 * a provider) through `fromAiSdk`, with a live retry, tracing, a guardrail on
 * a tool and a redaction of the model's answer; then one step of the
 * framework's own loop with inline terminals. Returns what a test checks.
 *
 * Run against `src/` by `ai-sdk-user.test.ts` and, with its imports mapped to
 * the package's entry points, against the installed package by the
 * packed-package tier (`test/package/ai-sdk.test.ts`), type-checked there first.
 */
import { APICallError, type LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';
import { z } from 'zod';
import { MiddlewareRegistry } from '../../src/core/index';
import {
  Agent,
  ExecuteToolStage,
  InvokeModelStage,
  createInterrupt,
  createModelContext,
  defineTool,
  errorResult,
  genAiSpans,
  modelTerminal,
  toolTerminal,
  type AgentEvent,
  type ToolResultBlock,
} from '../../src/agent/index';
import { fromAiSdk } from '../../src/ai-sdk/index';
import { retry, tracing } from '../../src/middleware/index';

const finish = (unified: 'stop' | 'tool-calls'): LanguageModelV3StreamPart => ({
  type: 'finish',
  finishReason: { unified, raw: undefined },
  usage: {
    inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: 5, reasoning: undefined },
  },
});

/** Two tool calls whose input deltas interleave, as providers stream parallel calls. */
const parallelCalls: LanguageModelV3StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'tool-input-start', id: 'call-1', toolName: 'weather' },
  { type: 'tool-input-start', id: 'call-2', toolName: 'delete_files' },
  { type: 'tool-input-delta', id: 'call-1', delta: '{"city":' },
  { type: 'tool-input-delta', id: 'call-2', delta: '{"path":"/"}' },
  { type: 'tool-input-delta', id: 'call-1', delta: '"Paris"}' },
  { type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: '{"city":"Paris"}' },
  { type: 'tool-call', toolCallId: 'call-2', toolName: 'delete_files', input: '{"path":"/"}' },
  finish('tool-calls'),
];

const answer: LanguageModelV3StreamPart[] = [
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: 'Sunny in Paris. ' },
  { type: 'text-delta', id: 't', delta: 'Write to ana@example.com for more.' },
  { type: 'text-end', id: 't' },
  finish('stop'),
];

/** The user's tasks; resolves to what they observed. */
export async function aiSdkUser(): Promise<Record<string, unknown>> {
  let calls = 0;
  const responses = [parallelCalls, answer, answer];
  const model = new MockLanguageModelV3({
    doStream: async () => {
      calls += 1;
      if (calls === 1)
        throw new APICallError({ message: 'Overloaded', url: 'https://api.example/v1', requestBodyValues: {}, statusCode: 503 });
      return { stream: convertArrayToReadableStream(responses[calls - 2] ?? answer) };
    },
  });

  const spans = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const registry = new MiddlewareRegistry();
  registry.instrument(tracing({ tracer: provider.getTracer('ai-sdk-user'), conventions: [genAiSpans] }));
  registry.add(InvokeModelStage.Wrap, retry({ backoff: () => 0, stream: 'live' }));
  registry.add(ExecuteToolStage.Wrap, async function* guardrail(context, next) {
    if (context.toolUse.name === 'delete_files') yield errorResult(context.toolUse, 'Blocked: deleting files needs a human.');
    else yield* next();
  });
  registry.add(InvokeModelStage.Output, (result) =>
    result.update((draft) => {
      for (const block of draft.message.content) if (block.type === 'text') block.text = block.text.replace(/\S+@\S+\.\w+/g, '[redacted]');
    }),
  );

  const weather = defineTool({
    name: 'weather',
    description: 'The weather in a city.',
    input: z.object({ city: z.string() }),
    run: ({ city }) => `Sunny in ${city}`,
  });
  const deleteFiles = defineTool({
    name: 'delete_files',
    description: 'Deletes files.',
    input: z.object({ path: z.string() }),
    run: () => 'deleted',
  });

  const agent = new Agent({ model: fromAiSdk(model), tools: [weather, deleteFiles], registry, systemPrompt: 'You are terse.' });
  const events: AgentEvent[] = [];
  for await (const event of agent.stream('Weather in Paris? Then clean up.')) events.push(event);
  const result = events.at(-1);
  const toolResults = (agent.messages[2]?.content ?? []) as readonly ToolResultBlock[];

  // One step of the framework's own loop: inline terminals, nothing annotated.
  const signal = new AbortController().signal;
  const context = createModelContext({
    model: fromAiSdk(model),
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Again?' }] }],
    systemPrompt: 'You are terse.',
    toolSpecs: [weather.spec],
    invocationState: {},
  });
  const own = await registry.run(InvokeModelStage, context, async function* (modelContext, run) {
    yield* modelTerminal(modelContext, run);
  });
  const toolUse = { name: 'weather', toolUseId: 'own-1', input: { city: 'Oslo' } };
  const toolContext = {
    tool: weather,
    toolUse,
    invocationState: {},
    signal,
    interrupt: createInterrupt(ExecuteToolStage.name, toolUse.toolUseId, new Map()),
  };
  const ownTool = await registry.run(ExecuteToolStage, toolContext, async function* (toolCallContext, run) {
    yield* toolTerminal(toolCallContext, run);
  });

  return {
    stopReason: result?.type === 'agentResult' ? result.stopReason : null,
    firstEvents: events.slice(0, 3).map((event) => event.type),
    answer: agent.messages.at(-1)?.content,
    toolResults: toolResults.map((block) => ({ toolUseId: block.toolUseId, name: block.name, status: block.status })),
    modelCalls: model.doStreamCalls.length,
    secondCallToolMessage: model.doStreamCalls[2]?.prompt.find((message) => message.role === 'tool'),
    ownLoop: { answer: own.message.content, tool: ownTool.toolResult },
    traced: spans.getFinishedSpans().length > 0,
  };
}
