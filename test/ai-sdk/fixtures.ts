/**
 * AI SDK doubles for the adapter's tests: `MockLanguageModelV3` of `ai/test`
 * streaming scripted stream parts, and the parts themselves.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart, LanguageModelV3Usage } from '@ai-sdk/provider';
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test';

/** V3 usage with these totals. */
export function usage(input: number, output: number): LanguageModelV3Usage {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

/** The parts of a text answer: start, one delta per piece, end, finish. */
export function textParts(pieces: readonly string[], finish: LanguageModelV3StreamPart = finishPart('stop')): LanguageModelV3StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 'txt' },
    ...pieces.map((delta): LanguageModelV3StreamPart => ({ type: 'text-delta', id: 'txt', delta })),
    { type: 'text-end', id: 'txt' },
    finish,
  ];
}

/** A finish part with this unified reason. */
export function finishPart(
  unified: 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other',
  raw?: string,
  tokens = usage(3, 2),
): LanguageModelV3StreamPart {
  return { type: 'finish', finishReason: { unified, raw }, usage: tokens };
}

/** A mock model answering its calls with these part lists, in order. */
export function mockModel(...responses: readonly (readonly LanguageModelV3StreamPart[])[]): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    provider: 'mock-provider',
    modelId: 'mock-model',
    doStream: responses.map((parts) => ({ stream: convertArrayToReadableStream([...parts]) })),
  });
}

/** What a doStream call received, without its signal (compared apart). */
export function withoutSignal(call: LanguageModelV3CallOptions | undefined): Omit<LanguageModelV3CallOptions, 'abortSignal'> {
  const { abortSignal: _signal, ...rest } = call as LanguageModelV3CallOptions;
  return rest;
}
