/**
 * What a user of the AI SDK's own loop does, written as that user writes it:
 * `streamText` keeps its loop, `languageModelMiddleware` runs the registry's
 * model handlers on every model call (a retry of a stream that fails
 * mid-way), and `wrapAiSdkTools` runs its tool handlers on every tool call (a
 * retry of a tool that fails, a guard). `MockLanguageModelV3` stands in for a
 * provider. Returns what a test checks.
 *
 * Run against `src/` by `ai-sdk-loop-user.test.ts` and, with its imports
 * mapped to the package's entry points, against the installed package in ESM
 * and CommonJS by the packed-package tier (`test/package/ai-sdk.test.ts`).
 */
import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';
import { z } from 'zod';
import { MiddlewareRegistry } from '../../src/core/index';
import { ExecuteToolStage, InvokeModelStage, errorResult } from '../../src/agent/index';
import { languageModelMiddleware, wrapAiSdkTools } from '../../src/ai-sdk/index';
import { retry } from '../../src/middleware/index';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

const responses: LanguageModelV3StreamPart[][] = [
  [
    { type: 'stream-start', warnings: [] },
    { type: 'tool-call', toolCallId: 'w1', toolName: 'weather', input: '{"city":"Paris"}' },
    { type: 'tool-call', toolCallId: 'd1', toolName: 'deleteFiles', input: '{"path":"/"}' },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage },
  ],
  [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'Half an ' },
    { type: 'error', error: new Error('connection reset') },
  ],
  [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'Sunny' },
    { type: 'text-delta', id: 't', delta: ', nothing deleted.' },
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage },
  ],
];

/** The user's task; resolves to what they observed. */
export async function aiSdkLoopUser(): Promise<Record<string, unknown>> {
  const calls: string[] = [];
  const registry = new MiddlewareRegistry();
  registry.add(InvokeModelStage.Wrap, retry({ attempts: 2, backoff: () => 0, retryOn: () => true }));
  registry.add(ExecuteToolStage.Wrap, retry({ attempts: 2, backoff: () => 0 }));
  registry.add(ExecuteToolStage.Wrap, async function* noDeletes(context, next) {
    if (context.toolUse.name === 'deleteFiles') yield errorResult(context.toolUse, 'Deleting needs a human.');
    else yield* next();
  });
  const tools = wrapAiSdkTools(registry, {
    weather: tool({
      description: 'The weather in a city.',
      inputSchema: z.object({ city: z.string() }),
      execute: ({ city }) => {
        calls.push(city);
        if (calls.length === 1) throw new Error('connection reset');
        return { city, sky: 'sunny' };
      },
    }),
    deleteFiles: tool({ inputSchema: z.object({ path: z.string() }), execute: ({ path }) => `deleted ${path}` }),
  });
  const model = wrapLanguageModel({
    model: new MockLanguageModelV3({ doStream: responses.map((parts) => ({ stream: convertArrayToReadableStream(parts) })) }),
    middleware: languageModelMiddleware(registry),
  });
  const result = streamText({ model, prompt: 'Weather, then tidy up', tools, stopWhen: stepCountIs(3) });
  const chunks: string[] = [];
  // By tool call id: the calls run side by side, and the guard's answer may come first.
  const toolParts: Record<string, unknown> = {};
  for await (const part of result.fullStream)
    if (part.type === 'text-delta') chunks.push(part.text);
    else if (part.type === 'tool-result') toolParts[part.toolCallId] = [part.type, part.output];
    else if (part.type === 'tool-error') toolParts[part.toolCallId] = [part.type, (part.error as Error).message];
  return { chunks, toolParts, calls, finishReason: await result.finishReason };
}
