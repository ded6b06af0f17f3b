import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { generateText, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { InvokeModelStage, type InvokeModelContext } from '../../src/agent/index';
import { languageModelMiddleware } from '../../src/ai-sdk/index';
import { retry } from '../../src/middleware/index';
import { finishPart, mockModel, textParts } from './fixtures';

/** A tool call part of a response. */
const weatherCall: LanguageModelV3StreamPart[] = [
  { type: 'stream-start', warnings: [] },
  { type: 'tool-call', toolCallId: 'call-1', toolName: 'weather', input: '{"city":"Paris"}' },
  finishPart('tool-calls'),
];

const weather = tool({
  description: 'The weather in a city.',
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }) => `Sunny in ${city}`,
});

describe('languageModelMiddleware', () => {
  describe('streamText with a tool loop', () => {
    it('runs Input and Output handlers on every model call and streams the chain events as parts', async () => {
      const registry = new MiddlewareRegistry();
      const seen: string[] = [];
      registry.add(InvokeModelStage.Input, function recordPrompt(context: InvokeModelContext) {
        seen.push(context.messages.map((message) => `${message.role}:${message.content.map((block) => block.type).join('+')}`).join(' '));
        return context;
      });
      registry.add(InvokeModelStage.Output, function shout(result) {
        return result.update((draft) => {
          for (const block of draft.message.content) if (block.type === 'text') block.text = block.text.toUpperCase();
        });
      });
      const model = wrapLanguageModel({
        model: mockModel(weatherCall, textParts(['Sunny', ' today'])),
        middleware: languageModelMiddleware(registry),
      });
      const errors: unknown[] = [];
      const result = streamText({
        model,
        prompt: 'Weather in Paris?',
        tools: { weather },
        stopWhen: stepCountIs(3),
        onError: ({ error }) => void errors.push(error),
      });
      const chunks: string[] = [];
      for await (const chunk of result.textStream) chunks.push(chunk);
      expect([errors, chunks, await result.finishReason, (await result.steps).length, seen]).toEqual([
        [],
        ['Sunny', ' today'],
        'stop',
        2,
        ['user:text', 'user:text assistant:toolUse user:toolResult'],
      ]);
      expect((await result.steps)[0]?.toolResults.map((toolResult) => toolResult.output)).toEqual(['Sunny in Paris']);
    });
  });

  describe('generateText', () => {
    it('answers with the result the Output handlers made, tool calls and usage included', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Output, function redact(result) {
        return result.update((draft) => {
          for (const block of draft.message.content) if (block.type === 'text') block.text = block.text.replace('secret', '[redacted]');
        });
      });
      const model = wrapLanguageModel({
        model: mockModel(weatherCall, textParts(['The secret is sun.'])),
        middleware: languageModelMiddleware(registry),
      });
      const result = await generateText({ model, prompt: 'Weather?', tools: { weather }, stopWhen: stepCountIs(3) });
      expect([
        result.text,
        result.steps.length,
        result.steps[0]?.toolCalls.map((call) => call.input),
        result.totalUsage.inputTokens,
      ]).toEqual(['The [redacted] is sun.', 2, [{ city: 'Paris' }], 6]);
    });
  });

  describe('a retry after a failure mid-stream', () => {
    it("streams the answer of the second attempt once, without the failed attempt's chunks (retry commits by default)", async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Wrap, retry({ attempts: 2, backoff: () => 0, retryOn: () => true }));
      const failing: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Half an ' },
        { type: 'error', error: new Error('connection reset') },
      ];
      const model = wrapLanguageModel({
        model: mockModel(failing, textParts(['Whole ', 'answer.'])),
        middleware: languageModelMiddleware(registry),
      });
      const result = streamText({ model, prompt: 'Hi' });
      const chunks: string[] = [];
      for await (const chunk of result.textStream) chunks.push(chunk);
      expect([chunks, await result.text]).toEqual([['Whole ', 'answer.'], 'Whole answer.']);
    });
  });

  describe('the request sent', () => {
    const image = { type: 'file' as const, mediaType: 'image/png', data: 'AAAA' };

    it('is the call as it came, parts the kit has no block for included, when no handler changed the request', async () => {
      const inner = mockModel(textParts(['ok']));
      const model = wrapLanguageModel({ model: inner, middleware: languageModelMiddleware(new MiddlewareRegistry()) });
      await generateText({ model, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, image] }] });
      expect(inner.doStreamCalls[0]?.prompt).toEqual([
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'file', mediaType: 'image/png', data: 'AAAA' },
          ],
        },
      ]);
    });

    it("is rebuilt from the handler's request when an Input handler changed it", async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Input, function addPolicy(context: InvokeModelContext) {
        return { ...context, systemPrompt: [...context.systemPrompt, { text: 'Answer in French.' }] };
      });
      const callWith = async (middlewareRegistry: MiddlewareRegistry): Promise<Record<string, unknown>> => {
        const inner = mockModel(textParts(['ok']));
        const model = wrapLanguageModel({ model: inner, middleware: languageModelMiddleware(middlewareRegistry) });
        await generateText({ model, system: 'Be brief.', prompt: 'Hi', temperature: 0 });
        const { abortSignal: _signal, ...call } = inner.doStreamCalls[0] ?? { prompt: [] };
        return call;
      };
      const asItCame = await callWith(new MiddlewareRegistry());
      expect(await callWith(registry)).toEqual({
        ...asItCame,
        prompt: [
          { role: 'system', content: 'Be brief.' },
          { role: 'system', content: 'Answer in French.' },
          { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        ],
      });
    });
  });

  describe('bad arguments', () => {
    it.each<[string, unknown, unknown, string]>([
      ['no registry', undefined, undefined, 'registry must be a MiddlewareRegistry, got undefined'],
      [
        'options that are not an object',
        new MiddlewareRegistry(),
        'v4',
        'options must be { specificationVersion?, invocationState? }, got the string "v4"',
      ],
      [
        'an unknown version',
        new MiddlewareRegistry(),
        { specificationVersion: 'v5' },
        "options.specificationVersion must be 'v3' or 'v4', got the string \"v5\"",
      ],
      [
        'an invocation state that is no object',
        new MiddlewareRegistry(),
        { invocationState: 1 },
        'options.invocationState must be an object, got number 1',
      ],
    ])('refuses %s with ERR_INVALID_OPTIONS', (_name, registry, options, problem) => {
      let thrown: unknown;
      try {
        languageModelMiddleware(registry as never, options as never);
      } catch (error) {
        thrown = error;
      }
      expect([
        MiddlewareError.isInstance(thrown),
        (thrown as MiddlewareError).code,
        (thrown as MiddlewareError).handler,
        (thrown as Error).message,
      ]).toEqual([true, 'ERR_INVALID_OPTIONS', 'languageModelMiddleware', `[ERR_INVALID_OPTIONS] languageModelMiddleware(): ${problem}.`]);
    });
  });
});
