/**
 * The AI SDK model of an agent case (`agent.aiSdk`, MW-186 – MW-188): a
 * scripted language model of the AI SDK's `LanguageModelV3` shape (or
 * `LanguageModelV4`'s, with `specificationVersion: 'v4'`), built as a
 * plain object so the kit loads nothing of the AI SDK, answering each
 * `doStream` call with the case's stream parts or provider error, and given
 * to the loop through `fromAiSdk`. It records what each call received, as
 * the case's `aiSdkCalls` shows it.
 */
import type { Model } from '../../src/agent/index';
import type { MiddlewareRegistry } from '../../src/core/index';
import { fromAiSdk, languageModelMiddleware, type AiSdkLanguageModel } from '../../src/ai-sdk/index';
import type { AiSdkCallOptions, AiSdkStreamResult } from '../../src/ai-sdk/ai-sdk-types';
import type { AgentCaseAiSdk } from '../cases/agent-doubles';
import type { AgentObservation } from '../protocol/agent-observation';
import { later, type World } from './doubles';

/** A provider error of a case: its message, and the status and verdict an `APICallError` carries. */
interface ProviderErrorSpec {
  readonly message: string;
  readonly statusCode?: number | undefined;
  readonly isRetryable?: boolean | undefined;
}

/** One scripted response that streams. */
type StreamingResponse = Extract<AgentCaseAiSdk['responses'][number], { parts: unknown }>;

/** The statuses an AI SDK `APICallError` calls retryable when it is given no verdict. */
function retryableStatus(statusCode: number): boolean {
  return statusCode === 408 || statusCode === 409 || statusCode === 429 || statusCode >= 500;
}

/**
 * The error a provider's client throws: an `Error` with the case's message
 * and, with a status, the properties of the AI SDK's `APICallError` that
 * `retry`'s classification reads (`statusCode`, `isRetryable`, `responseHeaders`).
 * Kept by message, so the run can be checked to reject with the very object.
 */
function providerError(world: World, spec: ProviderErrorSpec): Error {
  const error = new Error(spec.message);
  if (spec.statusCode !== undefined) {
    error.name = 'AI_APICallError';
    Object.assign(error, {
      statusCode: spec.statusCode,
      isRetryable: spec.isRetryable ?? retryableStatus(spec.statusCode),
      responseHeaders: {},
    });
  } else if (spec.isRetryable !== undefined) Object.assign(error, { isRetryable: spec.isRetryable });
  world.errors.set(spec.message, error);
  return error;
}

/** The stream of one response: its parts as they are, then its error part, then the end unless it hangs. */
function streamOf(world: World, response: StreamingResponse): ReadableStream<unknown> {
  return new ReadableStream<unknown>({
    start(controller) {
      for (const part of response.parts) controller.enqueue(part);
      if (response.failWith !== undefined) controller.enqueue({ type: 'error', error: providerError(world, response.failWith) });
      if (response.hang !== true) controller.close();
    },
    cancel() {
      world.observations.push('provider stream cancelled');
    },
  });
}

/** The scripted language model: `doStream` answers the responses in order and records each call's options. */
function scriptedLanguageModel(world: World, spec: AgentCaseAiSdk, calls: AiSdkCallOptions[]): AiSdkLanguageModel {
  let call = 0;
  return {
    specificationVersion: spec.specificationVersion ?? 'v3',
    provider: 'case-provider',
    modelId: 'case-model',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('The agent cases stream: doGenerate is never called.')),
    doStream: async (options: AiSdkCallOptions): Promise<AiSdkStreamResult> => {
      calls.push(options);
      const response = spec.responses[call++];
      if (response === undefined) throw new Error(`The case scripts ${spec.responses.length} doStream calls; call ${call} was made.`);
      if ('error' in response) throw providerError(world, response.error);
      if (response.cancelLater !== undefined) later(world, response.cancelLater);
      return { stream: streamOf(world, response) };
    },
  } as AiSdkLanguageModel;
}

/**
 * The case's AI SDK model as the loop's model (through `fromAiSdk`), and the
 * calls it receives. A language model `fromAiSdk` refuses (MW-301) gives a
 * model whose every call throws the refusal, so the case sees it as the run's error.
 */
export function buildAiSdkModel(
  world: World,
  spec: AgentCaseAiSdk,
  middleware?: MiddlewareRegistry,
): { model: Model; calls: AiSdkCallOptions[] } {
  const calls: AiSdkCallOptions[] = [];
  const scripted = scriptedLanguageModel(world, spec, calls);
  const languageModel = middleware === undefined ? scripted : wrapped(scripted, middleware);
  try {
    return { model: fromAiSdk(languageModel, spec.settings === undefined ? {} : { settings: spec.settings }), calls };
  } catch (refusal) {
    return { model: { stream: () => refused(refusal) }, calls };
  }
}

/**
 * The scripted model with `languageModelMiddleware(registry)` around its
 * `doStream`, as the AI SDK's `wrapLanguageModel` puts a middleware's
 * `wrapStream` around it (MW-302).
 */
function wrapped(languageModel: AiSdkLanguageModel, registry: MiddlewareRegistry): AiSdkLanguageModel {
  const middleware = languageModelMiddleware(registry);
  return {
    ...languageModel,
    doStream: (params: AiSdkCallOptions) =>
      // The scripted model's options are an interface of the adapter's own; the middleware reads them as outside data.
      middleware.wrapStream({ doStream: () => languageModel.doStream(params), params: { ...params }, model: languageModel }),
  };
}

/** A model call that throws `refusal`. */
// eslint-disable-next-line require-yield -- the call fails before its first event
async function* refused(refusal: unknown): AsyncGenerator<never, void, undefined> {
  throw refusal;
}

/** What one call received: `prompt`, `tools`, `toolChoice`, `settings` (every other key but `abortSignal`) and `aborted`, as JSON. */
export function aiSdkCallObservation(call: AiSdkCallOptions): NonNullable<AgentObservation['aiSdkCalls']>[number] {
  const { prompt, tools, toolChoice, abortSignal, ...settings } = call;
  const seen = { prompt, tools, toolChoice, settings, aborted: abortSignal?.aborted };
  return JSON.parse(JSON.stringify(seen)) as NonNullable<AgentObservation['aiSdkCalls']>[number];
}
