import { generateText, isStepCount, streamText, tool, wrapLanguageModel } from 'ai-v7';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareRegistry } from '../../src/core/index';
import { ExecuteToolStage, InvokeModelStage, errorResult, type InvokeModelContext } from '../../src/agent/index';
import { languageModelMiddleware, wrapAiSdkTools } from '../../src/ai-sdk/index';
import { retry } from '../../src/middleware/index';
import { finishPart, mockModelV4, textParts, type V4StreamPart } from './fixtures';

/** A response calling the weather tool, then the delete tool, in one step. */
const toolCalls: V4StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'tool-call', toolCallId: 'w1', toolName: 'weather', input: '{"city":"Paris"}' },
  { type: 'tool-call', toolCallId: 'd1', toolName: 'deleteFiles', input: '{"path":"/"}' },
  finishPart('tool-calls'),
];

/** A response that fails mid-stream, after half an answer. */
const failing: V4StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: 'Half an ' },
  { type: 'error', error: new Error('connection reset') },
];

/** A registry whose model calls record their prompt and retry, and whose tool calls retry and keep deletes out. */
function registryOf(prompts: string[]): MiddlewareRegistry {
  const registry = new MiddlewareRegistry();
  registry.add(InvokeModelStage.Input, function recordPrompt(context: InvokeModelContext) {
    prompts.push(context.messages.map((message) => `${message.role}:${message.content.map((block) => block.type).join('+')}`).join(' '));
    return context;
  });
  registry.add(InvokeModelStage.Wrap, retry({ attempts: 2, backoff: () => 0, retryOn: () => true }));
  registry.add(ExecuteToolStage.Wrap, retry({ attempts: 2, backoff: () => 0 }));
  registry.add(ExecuteToolStage.Wrap, async function* noDeletes(context, next) {
    if (context.toolUse.name === 'deleteFiles') yield errorResult(context.toolUse, 'Deleting needs a human.');
    else yield* next();
  });
  return registry;
}

/** The weather and delete tools of ai 7; the weather fails on its first call. */
function toolsOf(calls: string[]) {
  return {
    weather: tool({
      description: 'The weather in a city.',
      inputSchema: z.object({ city: z.string() }),
      execute: ({ city }) => {
        calls.push(city);
        if (calls.length === 1) throw new Error('connection reset');
        return `Sunny in ${city}`;
      },
    }),
    deleteFiles: tool({ inputSchema: z.object({ path: z.string() }), execute: ({ path }) => `deleted ${path}` }),
  };
}

describe('languageModelMiddleware and wrapAiSdkTools on ai 7 (MockLanguageModelV4)', () => {
  describe('streamText with a tool loop', () => {
    it('runs the model handlers on every call and the tool handlers on every tool call, a failed stream retried without its chunks', async () => {
      const prompts: string[] = [];
      const calls: string[] = [];
      const registry = registryOf(prompts);
      const model = wrapLanguageModel({
        model: mockModelV4(toolCalls, failing, textParts(['Sunny', ', nothing deleted.'])),
        middleware: languageModelMiddleware(registry, { specificationVersion: 'v4' }),
      });
      const result = streamText({
        model,
        prompt: 'Weather, then tidy up',
        tools: wrapAiSdkTools(registry, toolsOf(calls)),
        stopWhen: isStepCount(3),
      });
      // By tool call id: the calls run side by side, and the guard's answer may come first.
      const parts: Record<string, unknown> = {};
      const chunks: string[] = [];
      for await (const part of result.stream)
        if (part.type === 'text-delta') chunks.push(part.text);
        else if (part.type === 'tool-result') parts[part.toolCallId] = [part.type, part.output];
        else if (part.type === 'tool-error') parts[part.toolCallId] = [part.type, (part.error as Error).message];
      expect([chunks, parts, calls, prompts]).toEqual([
        ['Sunny', ', nothing deleted.'],
        { w1: ['tool-result', 'Sunny in Paris'], d1: ['tool-error', 'Deleting needs a human.'] },
        ['Paris', 'Paris'],
        ['user:text', 'user:text assistant:toolUse+toolUse user:toolResult+toolResult'],
      ]);
    });
  });

  describe('generateText with a tool loop', () => {
    it('answers with the text after the tool calls, the model having read the tool answers', async () => {
      const prompts: string[] = [];
      const calls: string[] = [];
      const registry = registryOf(prompts);
      const inner = mockModelV4(toolCalls, textParts(['Sunny, nothing deleted.']));
      const model = wrapLanguageModel({ model: inner, middleware: languageModelMiddleware(registry, { specificationVersion: 'v4' }) });
      const result = await generateText({
        model,
        prompt: 'Weather, then tidy up',
        tools: wrapAiSdkTools(registry, toolsOf(calls)),
        stopWhen: isStepCount(3),
      });
      expect([result.text, calls, inner.doStreamCalls[1]?.prompt.filter((message) => message.role === 'tool').at(-1)]).toEqual([
        'Sunny, nothing deleted.',
        ['Paris', 'Paris'],
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'w1', toolName: 'weather', output: { type: 'text', value: 'Sunny in Paris' } },
            {
              type: 'tool-result',
              toolCallId: 'd1',
              toolName: 'deleteFiles',
              output: { type: 'error-text', value: 'Deleting needs a human.' },
            },
          ],
        },
      ]);
    });
  });
});
