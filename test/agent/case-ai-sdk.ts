/**
 * The AI SDK model of an agent conformance case (`agent.aiSdk`):
 * `MockLanguageModelV3` of `ai/test` answering each `doStream` call with the
 * case's stream parts or provider error, given to the agent through
 * `fromAiSdk`, and what each call received, as the case's `aiSdkCalls` shows it.
 */
import { APICallError, type LanguageModelV3CallOptions, type LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import type { Model } from '../../src/agent/index';
import { fromAiSdk, type AiSdkCallSettings } from '../../src/ai-sdk/index';
import { later, type World } from './case-doubles';
import type { AgentCaseAiSdk } from './case-schema';

type ProviderError = { message: string; statusCode?: number | undefined; isRetryable?: boolean | undefined };

/** The error a provider's client throws: an `APICallError` when it has a status, kept by message for the run's checks. */
function providerError(world: World, spec: ProviderError): Error {
  const error =
    spec.statusCode === undefined
      ? new Error(spec.message)
      : new APICallError({ message: spec.message, url: 'https://provider.example/v1', requestBodyValues: {}, statusCode: spec.statusCode, ...(spec.isRetryable === undefined ? {} : { isRetryable: spec.isRetryable }) });
  world.errors.set(spec.message, error);
  return error;
}

/** The stream of one response: its parts, then its error part, then the end unless it hangs. */
function streamOf(world: World, response: Extract<AgentCaseAiSdk['responses'][number], { parts: unknown }>): ReadableStream<LanguageModelV3StreamPart> {
  return new ReadableStream<LanguageModelV3StreamPart>({
    start(controller) {
      for (const part of response.parts) controller.enqueue(part as unknown as LanguageModelV3StreamPart);
      if (response.failWith !== undefined) controller.enqueue({ type: 'error', error: providerError(world, response.failWith) });
      if (response.hang !== true) controller.close();
    },
    cancel() {
      world.observations.push('provider stream cancelled');
    },
  });
}

/** The case's AI SDK model as the agent's model, and the calls it receives. */
export function buildAiSdkModel(world: World, spec: AgentCaseAiSdk): { model: Model; calls: LanguageModelV3CallOptions[] } {
  let call = 0;
  const mock = new MockLanguageModelV3({
    provider: 'case-provider',
    modelId: 'case-model',
    doStream: async () => {
      const response = spec.responses[call++];
      if (response === undefined) throw new Error(`The case scripts ${spec.responses.length} doStream calls; call ${call} was made.`);
      if ('error' in response) throw providerError(world, response.error);
      if (response.cancelLater !== undefined) later(world, response.cancelLater);
      return { stream: streamOf(world, response) };
    },
  });
  return { model: fromAiSdk(mock, spec.settings === undefined ? {} : { settings: spec.settings as AiSdkCallSettings }), calls: mock.doStreamCalls };
}

/** What one call received, as the listed keys of an `aiSdkCalls` entry show it. */
export function aiSdkCallView(call: LanguageModelV3CallOptions | undefined, listed: Record<string, unknown>): Record<string, unknown> {
  const { prompt, tools, toolChoice, abortSignal, ...settings } = call ?? ({} as Partial<LanguageModelV3CallOptions>);
  const seen: Record<string, unknown> = { prompt, tools, toolChoice, settings, aborted: abortSignal?.aborted };
  return Object.fromEntries(Object.keys(listed).map((key) => [key, seen[key]]));
}
