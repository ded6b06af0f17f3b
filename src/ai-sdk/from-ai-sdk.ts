import { describeValue } from '../util/describe-value';
import { isObject } from '../util/is-object';
import type { Model, ModelCallOptions, ModelRequest, ModelStreamEvent } from '../agent/types/model';
import { toJsonValue } from '../agent/values/json-value';
import type { AiSdkCallSettings, AiSdkLanguageModel, AiSdkProviderOptions, AiSdkStreamResult } from './ai-sdk-types';
import { cachePointNotData, invalidAdapterOptions, unsupportedSpecification } from './errors';
import { providerCachePoint, SentPrompts, toCallOptions, type CachePointOptions } from './prompt';
import { ResponseStream } from './response-stream';

/** Options of {@link fromAiSdk}. */
export interface FromAiSdkOptions {
  /** Call settings passed on every call (`temperature`, `maxOutputTokens`, `headers`, `providerOptions`, ...). */
  readonly settings?: AiSdkCallSettings;
  /**
   * The provider options a cache point puts on the system message or prompt
   * part before it; `undefined` drops it. Default: Anthropic's `cacheControl`
   * and Bedrock's `cachePoint` (other providers ignore both).
   */
  readonly cachePoint?: (cacheType: string) => AiSdkProviderOptions | undefined;
}

/** A model of the agent kit made from an AI SDK language model. */
export interface AiSdkModel extends Model {
  /** The AI SDK model's provider id (`anthropic.messages`, `openai.chat`, ...). */
  readonly provider: string;
  /** The AI SDK model's model id. */
  readonly modelId: string;
  /** Streams one response of the AI SDK model as model stream events; throws the provider's error when it fails. */
  stream(request: ModelRequest, options: ModelCallOptions<Record<string, unknown>>): AsyncGenerator<ModelStreamEvent, void, undefined>;
}

/**
 * Turns a Vercel AI SDK language model (`LanguageModelV3`: any provider of
 * `ai` 6, or `LanguageModelV4`: any provider of `ai` 7; the mocks of
 * `ai/test` included) into a model of the agent kit, for the reference
 * `Agent` and for a framework's own loop alike (MW-186 – MW-188, MW-300,
 * MW-301). The adapter loads nothing of the AI SDK: it calls the model's
 * `doStream`, the same way for both specifications.
 *
 * What it maps. The request: the system prompt's text blocks as system
 * messages, the conversation (text, reasoning, tool calls; a user message's
 * tool results as tool messages, with their tool's name), cache points as
 * provider options on the part before them, the tool specs, the tool choice
 * and the run's signal. The response: text and reasoning deltas, tool uses
 * with their id and index on every input delta, usage, the finish reason as
 * the stop reason. A provider's error is thrown as it came (an
 * `APICallError` keeps `statusCode`, `isRetryable` and `responseHeaders`,
 * so `retry` classifies it). What it drops: reasoning signatures, system
 * blocks that are neither text nor cache points, tool calls the provider
 * executes itself, response parts the kit has no event for (sources,
 * files, metadata, warnings, citations, custom and reasoning-file parts,
 * pings), and parts whose fields do not have the types
 * of the specification (a delta or tool input that is not a string, a tool
 * call without a string id or name): provider output is outside data.
 *
 * A finish with reason `'interrupted'` (v4: the provider's stream ended
 * without a completion signal) ends the answer as a stream without a
 * finish part does, after its usage.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `model` is not a language model of specification
 *   version 3 or 4 with `doStream` (the message says which provider packages fit), or for options it cannot use.
 * @example
 * ```ts
 * import { anthropic } from '@ai-sdk/anthropic';
 * const agent = new Agent({ model: fromAiSdk(anthropic('claude-sonnet-4-5')), tools, registry });
 * ```
 */
export function fromAiSdk(model: AiSdkLanguageModel, options: FromAiSdkOptions = {}): AiSdkModel {
  checkModel(model);
  const { settings, cachePoint } = readOptions(options);
  const { provider, modelId } = model;
  const sent = new SentPrompts();
  return Object.freeze({
    provider,
    modelId,
    stream(
      request: ModelRequest,
      callOptions: ModelCallOptions<Record<string, unknown>>,
    ): AsyncGenerator<ModelStreamEvent, void, undefined> {
      const { signal } = callOptions;
      return streamResponse(() => model.doStream(toCallOptions(request, signal, settings, cachePoint, sent)), signal);
    },
  });
}

/**
 * One call: the request sent (by `call`), the response's parts turned into
 * events, the stream released however the call ends (see {@link ResponseStream}).
 */
export function streamResponse(
  call: () => PromiseLike<AiSdkStreamResult>,
  signal: AbortSignal,
): AsyncGenerator<ModelStreamEvent, void, undefined> {
  return new ResponseStream(call, signal);
}

/** The specification versions the adapter takes, and the `ai` major whose providers implement each (MW-300). */
const SPECIFICATIONS: Readonly<Record<string, number>> = { v3: 6, v4: 7 };

/**
 * Checks that `model` is an AI SDK language model of specification version 3 or 4.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` otherwise, saying what it got and what to install (MW-301).
 */
function checkModel(model: unknown): void {
  const candidate = model as Partial<AiSdkLanguageModel> | null | undefined;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.doStream !== 'function') {
    throw invalidAdapterOptions(
      `model must be an AI SDK language model with doStream() (openai('gpt-4.1'), say), got ${describeValue(model)}`,
    );
  }
  const version = candidate.specificationVersion as unknown;
  if (typeof version !== 'string' || !Object.hasOwn(SPECIFICATIONS, version)) throw unsupportedSpecification(version);
}
/** The options, checked. */
function readOptions(options: FromAiSdkOptions): { settings: AiSdkCallSettings | undefined; cachePoint: CachePointOptions } {
  if (!isObject(options)) throw invalidAdapterOptions(`options must be { settings?, cachePoint? }, got ${describeValue(options)}`);
  const { settings, cachePoint } = options;
  if (settings !== undefined && !isObject(settings))
    throw invalidAdapterOptions(`options.settings must be an object of call settings, got ${describeValue(settings)}`);
  if (cachePoint !== undefined && typeof cachePoint !== 'function')
    throw invalidAdapterOptions(`options.cachePoint must be a function of the cache type, got ${describeValue(cachePoint)}`);
  return { settings, cachePoint: cachePoint === undefined ? providerCachePoint : copying(cachePoint) };
}

/**
 * The user's `cachePoint`, each answer copied: the prompt messages the
 * options go into are frozen when sent (MW-145), and the user's own objects
 * (a constant reused for every cache point, say) must not be frozen with them.
 */
function copying(cachePoint: (cacheType: string) => AiSdkProviderOptions | undefined): CachePointOptions {
  return (cacheType) => {
    const options = cachePoint(cacheType);
    if (options === undefined) return undefined;
    // Provider options are JSON values: their JSON form is a copy that shares nothing, even with a frozen constant.
    const conversion = toJsonValue(options, `options.cachePoint(${JSON.stringify(cacheType)})`);
    if (!conversion.ok) throw cachePointNotData(conversion.problem);
    return conversion.json as AiSdkProviderOptions;
  };
}
