/**
 * AI SDK 7 doubles for the adapter's tests: `MockLanguageModelV4` of `ai/test`
 * (ai 7, installed as `ai-v7`) streaming scripted stream parts of
 * specification v4, and the parts themselves.
 */
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai-v7/test';

/** A stream part of `LanguageModelV4` (`@ai-sdk/provider` 4), as the mock's `doStream` streams it. */
export type V4StreamPart = Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer Part> ? Part : never;

/** What a `LanguageModelV4` receives on each call. */
export type V4CallOptions = MockLanguageModelV4['doStreamCalls'][number];

/** A v4 finish part with this unified reason and these token totals. */
export function finishPart(
  unified: Extract<V4StreamPart, { type: 'finish' }>['finishReason']['unified'],
  input = 3,
  output = 2,
): V4StreamPart {
  return {
    type: 'finish',
    finishReason: { unified, raw: undefined },
    usage: {
      inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: output, text: output, reasoning: undefined },
    },
  };
}

/** The parts of a text answer: start, one delta per piece, end, finish. */
export function textParts(pieces: readonly string[], finish: V4StreamPart = finishPart('stop')): V4StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 'txt' },
    ...pieces.map((delta): V4StreamPart => ({ type: 'text-delta', id: 'txt', delta })),
    { type: 'text-end', id: 'txt' },
    finish,
  ];
}

/** A v4 mock model answering its calls with these part lists, in order. */
export function mockModelV4(...responses: readonly (readonly V4StreamPart[])[]): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    provider: 'mock-provider',
    modelId: 'mock-model',
    doStream: responses.map((parts) => ({ stream: convertArrayToReadableStream([...parts]) })),
  });
}
