/**
 * The AI SDK model of an agent case (`agent.aiSdk`, MW-186 – MW-188): a
 * scripted language model of the AI SDK's `LanguageModelV3` shape (or
 * `LanguageModelV4`'s, with `specificationVersion: 'v4'`), built as a
 * plain object so the kit loads nothing of the AI SDK, answering each
 * `doStream` call with the case's stream parts or provider error, and given
 * to the loop through `fromAiSdk`. It records what each call received, as
 * the case's `aiSdkCalls` shows it. With `agent.aiSdkTools`, the loop's tools
 * are AI SDK tools wrapped by `wrapAiSdkTools`, called as the AI SDK's loop
 * calls them.
 */
import type { Model, NeedsApproval, Tool, ToolRunContext } from '../../src/agent/index';
import type { MiddlewareRegistry } from '../../src/core/index';
import {
  fromAiSdk,
  languageModelMiddleware,
  wrapAiSdkTools,
  type AiSdkLanguageModel,
  type AiSdkNeedsApproval,
  type AiSdkTool,
  type AiSdkToolApproval,
  type AiSdkToolExecutionOptions,
} from '../../src/ai-sdk/index';
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

/**
 * The case's tools as the AI SDK's loop runs them through `wrapAiSdkTools`
 * (MW-304 – MW-308): each becomes an AI SDK tool (`description`, a
 * `jsonSchema()`-like input schema, `execute` running the case tool), the set
 * is wrapped around `registry`, and each wrapped tool is given back to the
 * loop as the AI SDK's loop uses it: its `needsApproval` asked before the call
 * (the loop's approval question standing in for the AI SDK's approval
 * request), and `execute` called with the tool-use id as `toolCallId`, no
 * messages and the run's signal; a rejection is the call's failure.
 */
export function aiSdkLoopTools(
  tools: readonly Tool[],
  registry: MiddlewareRegistry,
  approval: Record<string, unknown> | undefined,
): Tool[] {
  const set: Record<string, AiSdkTool> = {};
  for (const tool of tools) set[tool.spec.name] = aiSdkToolOf(tool);
  const wrapped = wrapAiSdkTools(registry, set, approval === undefined ? {} : { approval: approval as AiSdkToolApproval });
  return tools.map((tool) => loopToolOf(tool, wrapped[tool.spec.name] as AiSdkTool));
}

/** A case tool as an AI SDK tool; its run context has no interrupt, as an AI SDK tool has none. */
function aiSdkToolOf(tool: Tool): AiSdkTool {
  if (tool.run === undefined) return { description: tool.spec.description, inputSchema: { jsonSchema: tool.spec.inputSchema } };
  return {
    description: tool.spec.description,
    inputSchema: { jsonSchema: tool.spec.inputSchema },
    execute: (input: unknown, options: AiSdkToolExecutionOptions) =>
      tool.run?.(input, {
        toolUse: { type: 'toolUse', name: tool.spec.name, toolUseId: options.toolCallId, input },
        signal: options.abortSignal ?? new AbortController().signal,
        invocationState: {},
        interrupt: () => {
          throw new Error('An AI SDK tool has no interrupt().');
        },
      }),
  };
}

/** A wrapped AI SDK tool as the loop's tool, called as the AI SDK's loop calls it. */
function loopToolOf(tool: Tool, wrapped: AiSdkTool): Tool {
  const execute = wrapped.execute as ((input: unknown, options: AiSdkToolExecutionOptions) => Promise<unknown>) | undefined;
  const asks = wrapped.needsApproval as AiSdkNeedsApproval | undefined;
  const needsApproval: NeedsApproval | undefined =
    typeof asks === 'function' ? (input, check) => asks(input, { toolCallId: check.toolUse.toolUseId }) : asks;
  return {
    spec: tool.spec,
    ...(execute === undefined
      ? {}
      : {
          run: (input: unknown, context: ToolRunContext) =>
            execute(input, { toolCallId: context.toolUse.toolUseId, messages: [], abortSignal: context.signal }),
        }),
    ...(needsApproval === undefined ? {} : { needsApproval }),
  };
}
