/**
 * The registry inside the AI SDK's own loop (MW-302, MW-303): the
 * InvokeModelStage handlers of a registry as one `LanguageModelMiddleware`
 * for `wrapLanguageModel`, so `streamText`, `generateText` and
 * `ToolLoopAgent` run them on every model call.
 */
import type { MiddlewareRegistry } from '../core/index';
import { describeValue } from '../util/describe-value';
import { isObject } from '../util/is-object';
import { createModelContext, InvokeModelStage, modelTerminal } from '../agent/index';
import type { Model, ModelRequest } from '../agent/types/model';
import type { InvokeModelContext, ModelResultEvent } from '../agent/types/stages';
import type { AiSdkCallOptions, AiSdkLanguageModel, AiSdkStreamResult } from './ai-sdk-types';
import { invalidMiddlewareOptions } from './errors';
import { fromCallOptions } from './from-call-options';
import { streamResponse } from './from-ai-sdk';
import { providerCachePoint, toCallOptions } from './prompt';
import {
  aiSdkFinishReason,
  aiSdkUsage,
  StreamPartWriter,
  toolCallsOf,
  type AiSdkFinishReason,
  type AiSdkStreamPart,
  type AiSdkUsage,
} from './to-stream-parts';

/** Options of {@link languageModelMiddleware}. */
export interface LanguageModelMiddlewareOptions<TVersion extends 'v3' | 'v4' = 'v3'> {
  /** The specification of the models it wraps: `'v3'` (ai 6, the default) or `'v4'` (ai 7). */
  readonly specificationVersion?: TVersion;
  /** The invocation state every call's context shares (by reference); a new empty object per call without it. */
  readonly invocationState?: Record<string, unknown>;
}

/**
 * The call options the AI SDK gives a middleware (`LanguageModelV3CallOptions`
 * or `LanguageModelV4CallOptions`): read as outside data, every key kept.
 */
export interface AiSdkWrapParams {
  /** The prompt: system, user, assistant and tool messages. */
  readonly prompt: readonly unknown[];
  /** Aborts the call. */
  readonly abortSignal?: AbortSignal | undefined;
  /** Every other call option (tools, tool choice, settings, provider options). */
  readonly [key: string]: unknown;
}

/** What `wrapStream` and `wrapGenerate` receive from the AI SDK. */
export interface AiSdkWrapOptions {
  /** Calls the wrapped model's `doStream` with the call's options. */
  readonly doStream: () => PromiseLike<AiSdkStreamResult>;
  /** The call's options. */
  readonly params: AiSdkWrapParams;
  /** The wrapped model. */
  readonly model: AiSdkLanguageModel;
}

/** What `wrapGenerate` resolves to: a `LanguageModelV3GenerateResult` (and a V4 one). */
export interface AiSdkGenerateResult {
  /** The answer's text, reasoning and tool calls. */
  content: ({ type: 'text'; text: string } | { type: 'reasoning'; text: string } | Extract<AiSdkStreamPart, { type: 'tool-call' }>)[];
  /** Why the model stopped. */
  finishReason: AiSdkFinishReason;
  /** Token counts. */
  usage: AiSdkUsage;
  /** None: the provider's warnings do not pass through the stage. */
  warnings: [];
}

/** A `LanguageModelMiddleware` of the AI SDK (`LanguageModelV3Middleware`, or `LanguageModelV4Middleware` for `'v4'`). */
export interface AiSdkLanguageModelMiddleware<TVersion extends 'v3' | 'v4' = 'v3'> {
  /** The specification of the models it wraps. */
  readonly specificationVersion: TVersion;
  /** Runs the registry's InvokeModelStage chain around the model's stream. */
  readonly wrapStream: (options: AiSdkWrapOptions) => Promise<{ stream: ReadableStream<AiSdkStreamPart> }>;
  /** Runs the same chain, streaming the model, and answers with the result. */
  readonly wrapGenerate: (options: AiSdkWrapOptions) => Promise<AiSdkGenerateResult>;
}

/**
 * The InvokeModelStage handlers of `registry` as a middleware of the AI SDK's
 * `wrapLanguageModel` (MW-302, MW-303): each call of the wrapped model is one
 * invoke of InvokeModelStage, whose context holds the call's prompt, tools
 * and tool choice as the agent kit's messages (tool results as user
 * messages), system prompt and tool specs, and whose terminal calls the
 * model's `doStream`. Input handlers (guardrails on the prompt), Wrap
 * handlers (`retry`, `cache`, `fallback`, `timeout`), instrumentations
 * (`tracing`) and Output handlers (on the result) run as in the reference
 * agent, in the registry's order. The stream gives the chain's events as
 * stream parts; the tool calls and the finish come from the chain's result,
 * so an Output handler decides them. Nothing of TurnStage, ExecuteToolStage
 * or the model state has a place in the AI SDK's middleware;
 * `wrapAiSdkTools` runs ExecuteToolStage around the AI SDK's tools.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `registry` is no registry or an option is invalid.
 * @example
 * ```ts
 * import { streamText, wrapLanguageModel } from 'ai';
 * declare const providerModel: Parameters<typeof wrapLanguageModel>[0]['model']; // openai('gpt-4.1'), say
 * const model = wrapLanguageModel({ model: providerModel, middleware: languageModelMiddleware(registry) });
 * const result = streamText({ model, prompt: 'Hi' });
 * ```
 */
export function languageModelMiddleware<TVersion extends 'v3' | 'v4' = 'v3'>(
  registry: MiddlewareRegistry,
  options: LanguageModelMiddlewareOptions<TVersion> = {},
): AiSdkLanguageModelMiddleware<TVersion> {
  if (!isObject(registry) || typeof (registry as { invoke?: unknown }).invoke !== 'function')
    throw invalidMiddlewareOptions(`registry must be a MiddlewareRegistry, got ${describeValue(registry)}`);
  if (!isObject(options))
    throw invalidMiddlewareOptions(`options must be { specificationVersion?, invocationState? }, got ${describeValue(options)}`);
  const { specificationVersion = 'v3', invocationState } = options;
  if (specificationVersion !== 'v3' && specificationVersion !== 'v4')
    throw invalidMiddlewareOptions(`options.specificationVersion must be 'v3' or 'v4', got ${describeValue(specificationVersion)}`);
  if (invocationState !== undefined && !isObject(invocationState))
    throw invalidMiddlewareOptions(`options.invocationState must be an object, got ${describeValue(invocationState)}`);
  const invoke = (
    wrap: AiSdkWrapOptions,
  ): AsyncIterator<ReturnType<StreamPartWriter['parts']> extends unknown ? Parameters<StreamPartWriter['parts']>[0] : never> => {
    const signal = wrap.params.abortSignal ?? new AbortController().signal;
    const context = contextOf(wrap, invocationState ?? {});
    return registry.invoke(InvokeModelStage, context, modelTerminal, { signal })[Symbol.asyncIterator]();
  };
  return Object.freeze({
    specificationVersion: specificationVersion as TVersion,
    async wrapStream(wrap: AiSdkWrapOptions): Promise<{ stream: ReadableStream<AiSdkStreamPart> }> {
      const events = invoke(wrap);
      const writer = new StreamPartWriter();
      // The first event is awaited here, so a call that fails before it streams rejects as a provider's doStream does.
      const first = await events.next();
      const stream = new ReadableStream<AiSdkStreamPart>({
        start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          if (first.done === true) controller.close();
          else for (const part of writer.parts(first.value)) controller.enqueue(part);
        },
        async pull(controller) {
          try {
            // An event without a part (usage, the stop) is read past: a pull that enqueues nothing is not called again.
            for (;;) {
              const next = await events.next();
              if (next.done === true) {
                controller.close();
                return;
              }
              const parts = writer.parts(next.value);
              for (const part of parts) controller.enqueue(part);
              if (parts.length > 0) return;
            }
          } catch (error) {
            controller.enqueue({ type: 'error', error });
            controller.close();
          }
        },
        async cancel() {
          await events.return?.();
        },
      });
      return { stream };
    },
    async wrapGenerate(wrap: AiSdkWrapOptions): Promise<AiSdkGenerateResult> {
      const events = invoke(wrap);
      let result: ModelResultEvent | undefined;
      for (let next = await events.next(); next.done !== true; next = await events.next())
        if (next.value.type === 'modelResult') result = next.value;
      // Every invoke ends with its result (MW-101): the chain's contract guarantees one.
      const { message, stopReason, usage } = result as ModelResultEvent;
      const content: AiSdkGenerateResult['content'] = [];
      for (const block of message.content) {
        if (block.type === 'text' || block.type === 'reasoning') content.push({ type: block.type, text: block.text });
      }
      content.push(...toolCallsOf(result as ModelResultEvent));
      return { content, finishReason: aiSdkFinishReason(stopReason), usage: aiSdkUsage(usage), warnings: [] };
    },
  });
}

/** The InvokeModelStage context of one call, its model calling the wrapped model. */
function contextOf(wrap: AiSdkWrapOptions, invocationState: Record<string, unknown>): InvokeModelContext {
  const parts = fromCallOptions(wrap.params);
  let context: InvokeModelContext | undefined;
  const model: Model & { readonly provider: string; readonly modelId: string } = {
    provider: wrap.model.provider,
    modelId: wrap.model.modelId,
    stream: (request, callOptions) =>
      streamResponse(
        () =>
          unchanged(request, context as InvokeModelContext)
            ? wrap.doStream()
            : wrap.model.doStream(rebuilt(wrap.params, request, callOptions.signal)),
        callOptions.signal,
      ),
  };
  context = createModelContext({ model, ...parts, invocationState });
  return context;
}

/** Whether the request is the one the call's options made: no Input handler changed the prompt, the tools or the tool choice. */
function unchanged(request: ModelRequest, context: InvokeModelContext): boolean {
  return (
    request.messages === context.messages &&
    request.toolSpecs === context.toolSpecs &&
    request.toolChoice === context.toolChoice &&
    request.systemBlocks.length === context.systemPrompt.length &&
    request.systemBlocks.every((block, index) => block === context.systemPrompt[index])
  );
}

/** The call's options with the prompt, tools and tool choice of a request a handler changed. */
function rebuilt(params: AiSdkWrapParams, request: ModelRequest, signal: AbortSignal): AiSdkCallOptions {
  const { prompt: _prompt, tools: _tools, toolChoice: _toolChoice, abortSignal: _signal, ...settings } = params;
  return toCallOptions(request, signal, settings, providerCachePoint);
}
