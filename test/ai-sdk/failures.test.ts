import { getEventListeners } from 'node:events';
import { APICallError, type LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { Agent, InvokeModelStage, type AgentEvent, type ModelRequest } from '../../src/agent/index';
import { fromAiSdk, type AiSdkLanguageModel } from '../../src/ai-sdk/index';
import { retry } from '../../src/middleware/index';
import { finishPart, mockModel, textParts } from './fixtures';

const request: ModelRequest = {
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  systemPrompt: '',
  systemBlocks: [],
  toolSpecs: [],
  toolChoice: undefined,
};

/** An APICallError as a provider raises it for an HTTP status. */
function apiError(statusCode: number, responseHeaders: Record<string, string> = {}): APICallError {
  return new APICallError({
    message: `HTTP ${statusCode}`,
    url: 'https://api.example/v1/messages',
    requestBodyValues: {},
    statusCode,
    responseHeaders,
  });
}

/** A model whose stream's reader answers `parts`, then done, and records what the adapter calls on it besides read. */
function recordingReader(parts: readonly LanguageModelV3StreamPart[]): { model: AiSdkLanguageModel; calls: unknown[][] } {
  const left = [...parts];
  const calls: unknown[][] = [];
  const reader = {
    read: async () => {
      const value = left.shift();
      return value === undefined ? { done: true } : { done: false, value };
    },
    cancel: async (reason?: unknown) => void calls.push(['cancel', reason]),
    releaseLock: () => void calls.push(['releaseLock']),
  };
  return {
    calls,
    model: { specificationVersion: 'v3', provider: 'p', modelId: 'm', doStream: async () => ({ stream: { getReader: () => reader } }) },
  };
}

/** A mock model whose calls fail with `errors` in order, then stream `parts`. */
function failingThen(errors: readonly unknown[], parts: readonly LanguageModelV3StreamPart[]): MockLanguageModelV3 {
  let call = 0;
  return new MockLanguageModelV3({
    doStream: async () => {
      const error = errors[call++];
      if (error !== undefined) throw error;
      return { stream: convertArrayToReadableStream([...parts]) };
    },
  });
}

describe('fromAiSdk', () => {
  describe('a provider error', () => {
    it('rejects with the very error doStream rejected with', async () => {
      const overloaded = apiError(529);
      const stream = fromAiSdk(failingThen([overloaded], [])).stream(request, { signal: new AbortController().signal, state: {} });
      await expect(stream.next()).rejects.toBe(overloaded);
    });

    it('throws the error of an error part, after the events before it', async () => {
      const cut = new Error('connection reset');
      const seen: string[] = [];
      const stream = fromAiSdk(
        mockModel([{ type: 'text-delta', id: 't', delta: 'Hal' }, { type: 'error', error: cut }, ...textParts(['never'])]),
      ).stream(request, { signal: new AbortController().signal, state: {} });
      const failure = await (async () => {
        try {
          for await (const event of stream) seen.push(event.type);
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect([seen, failure]).toEqual([['messageStart', 'textDelta'], cut]);
      expect(failure).toBe(cut);
    });

    it('fails a finish with reason error that no error part explained, the finish reason as the cause', async () => {
      const finish = finishPart('error', 'server_error');
      const stream = fromAiSdk(mockModel(textParts(['x'], finish))).stream(request, {
        signal: new AbortController().signal,
        state: {},
      });
      const failure = await (async () => {
        for await (const _event of stream);
      })().catch((error: unknown) => error);
      expect([failure instanceof Error, (failure as Error).message, (failure as Error).cause]).toEqual([
        true,
        'The AI SDK model finished its response with reason "error" (the provider\'s "server_error") and no error part: the response is incomplete.',
        { unified: 'error', raw: 'server_error' },
      ]);
      expect((failure as Error).cause).toBe((finish as { finishReason: unknown }).finishReason);
    });
  });

  describe('under retry around InvokeModelStage', () => {
    it('recovers from a 503: the next attempt answers, and the wait is what Retry-After asked', async () => {
      const model = failingThen([apiError(503, { 'retry-after-ms': '5' })], textParts(['Back.']));
      const waits: number[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Wrap, retry({ backoff: () => 0, onRetry: (info) => void waits.push(info.delayMs) }));
      const result = await new Agent({ model: fromAiSdk(model), registry }).invoke('hi');
      expect([result.stopReason, result.message?.content, model.doStreamCalls.length, waits]).toEqual([
        'endTurn',
        [{ type: 'text', text: 'Back.' }],
        2,
        [5],
      ]);
    });

    it('does not retry a 400: the run rejects with the provider error after one call', async () => {
      const badRequest = apiError(400);
      const model = failingThen([badRequest], textParts(['unreachable']));
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Wrap, retry({ backoff: () => 0 }));
      const failure = await new Agent({ model: fromAiSdk(model), registry }).invoke('hi').catch((error: unknown) => error);
      expect([failure, model.doStreamCalls.length]).toEqual([badRequest, 1]);
      expect(failure).toBe(badRequest);
    });

    it('streams each text delta as it arrives with stream: live, before the response ends', async () => {
      let feed: ReadableStreamDefaultController<LanguageModelV3StreamPart> | undefined;
      const model = new MockLanguageModelV3({
        doStream: async () => ({
          stream: new ReadableStream<LanguageModelV3StreamPart>({
            start(controller) {
              feed = controller;
            },
          }),
        }),
      });
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Wrap, retry({ stream: 'live' }));
      const events = new Agent({ model: fromAiSdk(model), registry }).stream('hi');
      const first = await events.next();
      feed?.enqueue({ type: 'text-delta', id: 't', delta: 'Hel' });
      const second = await events.next();
      // The response has not ended: the delta reached the consumer while the model still streams.
      feed?.enqueue({ type: 'text-delta', id: 't', delta: 'lo' });
      for (const part of textParts([]).slice(2)) feed?.enqueue(part);
      feed?.close();
      const rest: AgentEvent[] = [];
      for await (const event of events) rest.push(event);
      expect([first.value, second.value, rest.map((event) => event.type)]).toEqual([
        { type: 'messageStart', role: 'assistant' },
        { type: 'textDelta', text: 'Hel' },
        ['textDelta', 'usage', 'messageStop', 'modelResult', 'agentResult'],
      ]);
    });
  });

  describe('when the run is cancelled while the provider streams', () => {
    it('ends the run as cancelled, aborts the provider request and cancels its stream', async () => {
      const cancelled: unknown[] = [];
      const model = new MockLanguageModelV3({
        doStream: async () => ({
          stream: new ReadableStream<LanguageModelV3StreamPart>({
            start(controller) {
              controller.enqueue({ type: 'text-delta', id: 't', delta: 'Thinking' });
            },
            cancel(reason) {
              cancelled.push(reason);
            },
          }),
        }),
      });
      const agent = new Agent({ model: fromAiSdk(model) });
      const seen: string[] = [];
      for await (const event of agent.stream('hi')) {
        seen.push(event.type);
        if (event.type === 'textDelta') agent.cancel('user left');
      }
      const signal = model.doStreamCalls[0]?.abortSignal;
      expect([seen, signal?.aborted, signal?.reason, cancelled]).toEqual([
        ['messageStart', 'textDelta', 'agentResult'],
        true,
        'user left',
        ['user left'],
      ]);
      expect(agent.messages).toEqual([]);
    });

    it('rejects the pending read with the reason and cancels the provider stream with it', async () => {
      const cancelled: unknown[] = [];
      const model = new MockLanguageModelV3({
        doStream: async () => ({
          stream: new ReadableStream<LanguageModelV3StreamPart>({
            cancel(reason) {
              cancelled.push(reason);
            },
          }),
        }),
      });
      const controller = new AbortController();
      const stream = fromAiSdk(model).stream(request, { signal: controller.signal, state: {} });
      await stream.next();
      const pending = stream.next();
      controller.abort('user left');
      const failure = await pending.catch((error: unknown) => ({ rejected: error }));
      expect([failure, cancelled, getEventListeners(controller.signal, 'abort')]).toEqual([{ rejected: 'user left' }, ['user left'], []]);
    });

    it('cancels the provider stream when the signal aborts while the consumer holds the call between pulls', async () => {
      const { model, calls } = recordingReader(textParts(['x']));
      const controller = new AbortController();
      const stream = fromAiSdk(model).stream(request, { signal: controller.signal, state: {} });
      await stream.next();
      controller.abort('user left');
      expect([calls, getEventListeners(controller.signal, 'abort')]).toEqual([[['cancel', 'user left']], []]);
    });

    it('rejects with the reason when the signal is already aborted, without calling the provider', async () => {
      const model = mockModel(textParts(['x']));
      const stream = fromAiSdk(model).stream(request, { signal: AbortSignal.abort('gone'), state: {} });
      await expect(stream.next()).rejects.toBe('gone');
      expect(model.doStreamCalls).toEqual([]);
    });
  });

  describe('the provider stream, once the call ends', () => {
    it('is released, not cancelled, after the stream ended, and the signal keeps no listener', async () => {
      const { model, calls } = recordingReader(textParts(['x']));
      const signal = new AbortController().signal;
      const events: string[] = [];
      for await (const event of fromAiSdk(model).stream(request, { signal, state: {} })) events.push(event.type);
      expect([events, calls, getEventListeners(signal, 'abort')]).toEqual([
        ['messageStart', 'textDelta', 'usage', 'messageStop'],
        [['releaseLock']],
        [],
      ]);
    });

    it('is cancelled and released when the consumer closes the call before the stream ended', async () => {
      const { model, calls } = recordingReader(textParts(['x', 'y']));
      const signal = new AbortController().signal;
      const stream = fromAiSdk(model).stream(request, { signal, state: {} });
      await stream.next();
      await stream.next();
      await stream.return();
      expect([calls, getEventListeners(signal, 'abort')]).toEqual([[['cancel', undefined], ['releaseLock']], []]);
    });
  });

  describe('a value that is no AI SDK model', () => {
    const noModel = (got: string): string =>
      `[ERR_INVALID_OPTIONS] fromAiSdk(): model must be an AI SDK language model with doStream() (openai('gpt-4.1'), say), got ${got}.`;
    const version = (shown: string, advice: string): string =>
      `[ERR_INVALID_OPTIONS] fromAiSdk(): model implements the AI SDK's language model specification ${shown}, but the adapter takes "v3" (the providers of ai 6) and "v4" (the providers of ai 7); ${advice}.`;
    const older =
      'it comes from a provider package for an older ai: upgrade ai and the provider package together (npm i ai@latest @ai-sdk/openai@latest, say)';
    const unknown = "pass a model of a provider package for ai 6 or ai 7 (openai('gpt-4.1') of @ai-sdk/openai, say)";

    it.each<[string, unknown, string]>([
      ['undefined', undefined, noModel('undefined')],
      ['null', null, noModel('null')],
      ['a model id string', 'openai/gpt-4.1', noModel('the string "openai/gpt-4.1"')],
      [
        'an object of specification v3 without doStream',
        { specificationVersion: 'v3', provider: 'p', modelId: 'm' },
        noModel('a plain object'),
      ],
      [
        'a model of specification v2 (ai 5), saying to upgrade',
        { specificationVersion: 'v2', provider: 'p', modelId: 'm', doStream: () => undefined },
        version('"v2"', older),
      ],
      [
        'a model of specification v1, saying to upgrade',
        { specificationVersion: 'v1', provider: 'p', modelId: 'm', doStream: () => undefined },
        version('"v1"', older),
      ],
      [
        'a model of a later specification, saying which release to use',
        { specificationVersion: 'v5', provider: 'p', modelId: 'm', doStream: () => undefined },
        version(
          '"v5"',
          'it comes from a provider package newer than ai 7: use the provider package\'s release for ai 7 (npm i ai@7 @ai-sdk/openai@4, say), or a release of staged-middleware that takes "v5"',
        ),
      ],
      [
        'a model of specification v10, as a later one',
        { specificationVersion: 'v10', provider: 'p', modelId: 'm', doStream: () => undefined },
        version(
          '"v10"',
          'it comes from a provider package newer than ai 7: use the provider package\'s release for ai 7 (npm i ai@7 @ai-sdk/openai@4, say), or a release of staged-middleware that takes "v10"',
        ),
      ],
      [
        'a model without a specification version',
        { provider: 'p', modelId: 'm', doStream: () => undefined },
        version('undefined', unknown),
      ],
      [
        'a model whose version is a number',
        { specificationVersion: 3, provider: 'p', modelId: 'm', doStream: () => undefined },
        version('number 3', unknown),
      ],
      [
        'a model whose version is an unknown string',
        { specificationVersion: 'v3-beta', provider: 'p', modelId: 'm', doStream: () => undefined },
        version('"v3-beta"', unknown),
      ],
      [
        'a model whose version is an inherited key',
        { specificationVersion: 'toString', provider: 'p', modelId: 'm', doStream: () => undefined },
        version('"toString"', unknown),
      ],
    ])('refuses %s with ERR_INVALID_OPTIONS', (_name, model, message) => {
      let thrown: unknown;
      try {
        fromAiSdk(model as never);
      } catch (error) {
        thrown = error;
      }
      expect([
        MiddlewareError.isInstance(thrown),
        (thrown as MiddlewareError).code,
        (thrown as MiddlewareError).phase,
        (thrown as MiddlewareError).handler,
        (thrown as Error).message,
      ]).toEqual([true, 'ERR_INVALID_OPTIONS', 'register', 'fromAiSdk', message]);
    });

    it.each([
      ['options that are not an object', 'fast', 'options must be { settings?, cachePoint? }, got the string "fast"'],
      ['settings that are not an object', { settings: 3 }, 'options.settings must be an object of call settings, got number 3'],
      [
        'a cachePoint that is not a function',
        { cachePoint: { anthropic: {} } },
        'options.cachePoint must be a function of the cache type, got a plain object',
      ],
    ])('refuses %s with ERR_INVALID_OPTIONS', (_name, options, problem) => {
      expect(() => fromAiSdk(mockModel([]), options as never)).toThrow(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          handler: 'fromAiSdk',
          message: `[ERR_INVALID_OPTIONS] fromAiSdk(): ${problem}.`,
        }),
      );
    });
  });
});
