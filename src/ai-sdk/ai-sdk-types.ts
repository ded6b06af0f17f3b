/**
 * The parts of the Vercel AI SDK's language model interface, versions 3
 * (`LanguageModelV3` of `@ai-sdk/provider` 3, used by `ai` 6) and 4
 * (`LanguageModelV4` of `@ai-sdk/provider` 4, used by `ai` 7), that the
 * adapter takes and sends: what it sends is valid in both. Pure types.
 *
 * Why declared here rather than imported: the declarations of this entry
 * point must compile where `@ai-sdk/provider` is not installed (it is an
 * optional peer, and the adapter needs none of its code). Every
 * `LanguageModelV3` and `LanguageModelV4` (a provider's model, the mocks of
 * `ai/test`) fits {@link AiSdkLanguageModel}, which the package's type tests check.
 *
 * @packageDocumentation
 */

/** A JSON value, as provider options and tool results hold it. */
export type AiSdkJsonValue = null | string | number | boolean | { [key: string]: AiSdkJsonValue | undefined } | AiSdkJsonValue[];

/** Options for providers, by provider name (`anthropic`, `bedrock`, `openai`, ...). */
export type AiSdkProviderOptions = Record<string, Record<string, AiSdkJsonValue | undefined>>;

/** Text in a prompt message. */
export interface AiSdkTextPart {
  /** Part kind. */
  type: 'text';
  /** The text. */
  text: string;
  /** Options for providers (cache control, say). */
  providerOptions?: AiSdkProviderOptions;
}

/** Reasoning in an assistant message of the prompt. */
export interface AiSdkReasoningPart {
  /** Part kind. */
  type: 'reasoning';
  /** The reasoning text. */
  text: string;
  /** Options for providers. */
  providerOptions?: AiSdkProviderOptions;
}

/** A tool call in an assistant message of the prompt. */
export interface AiSdkToolCallPart {
  /** Part kind. */
  type: 'tool-call';
  /** The call's id; its result carries the same id. */
  toolCallId: string;
  /** The tool's name. */
  toolName: string;
  /** The call's input (parsed JSON). */
  input: unknown;
  /** Options for providers. */
  providerOptions?: AiSdkProviderOptions;
}

/** The output of a tool call, as the prompt carries it. */
export type AiSdkToolResultOutput =
  | { type: 'text'; value: string }
  | { type: 'json'; value: AiSdkJsonValue }
  | { type: 'error-text'; value: string }
  | { type: 'error-json'; value: AiSdkJsonValue }
  | { type: 'content'; value: { type: 'text'; text: string }[] };

/** A tool result in a tool message of the prompt. */
export interface AiSdkToolResultPart {
  /** Part kind. */
  type: 'tool-result';
  /** The id of the call it answers. */
  toolCallId: string;
  /** The name of the tool called. */
  toolName: string;
  /** What the tool produced. */
  output: AiSdkToolResultOutput;
  /** Options for providers. */
  providerOptions?: AiSdkProviderOptions;
}

/** One message of the prompt the adapter sends. */
export type AiSdkMessage =
  | { role: 'system'; content: string; providerOptions?: AiSdkProviderOptions }
  | { role: 'user'; content: AiSdkTextPart[]; providerOptions?: AiSdkProviderOptions }
  | { role: 'assistant'; content: (AiSdkTextPart | AiSdkReasoningPart | AiSdkToolCallPart)[]; providerOptions?: AiSdkProviderOptions }
  | { role: 'tool'; content: AiSdkToolResultPart[]; providerOptions?: AiSdkProviderOptions };

/** A tool the model may call. */
export interface AiSdkFunctionTool {
  /** Tool kind. */
  type: 'function';
  /** The name the model calls it by. */
  name: string;
  /** What it does, for the model. */
  description?: string;
  /** JSON Schema of its input. */
  inputSchema: Record<string, unknown>;
}

/** How the model may use the tools. */
export type AiSdkToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'tool'; toolName: string };

/** Call settings the adapter passes on every call (the ones of `LanguageModelV3CallOptions` and `LanguageModelV4CallOptions` it does not set itself). */
export interface AiSdkCallSettings {
  /** Most tokens to generate. */
  maxOutputTokens?: number;
  /** Sampling temperature. */
  temperature?: number;
  /** Texts that stop generation. */
  stopSequences?: string[];
  /** Nucleus sampling. */
  topP?: number;
  /** Top-K sampling. */
  topK?: number;
  /** Presence penalty. */
  presencePenalty?: number;
  /** Frequency penalty. */
  frequencyPenalty?: number;
  /** Seed for deterministic sampling, where supported. */
  seed?: number;
  /** Reasoning effort (specification v4 only; a v3 model ignores it). */
  reasoning?: 'provider-default' | 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';
  /** Extra HTTP headers. */
  headers?: Record<string, string | undefined>;
  /** Options for providers, by provider name. */
  providerOptions?: AiSdkProviderOptions;
}

/** What the adapter passes to `doStream`: the request, the settings and the run's signal. */
export interface AiSdkCallOptions extends AiSdkCallSettings {
  /** The system prompt and the conversation. */
  prompt: AiSdkMessage[];
  /** The tools, when there are any. */
  tools?: AiSdkFunctionTool[];
  /** How the model may use them, when constrained. */
  toolChoice?: AiSdkToolChoice;
  /** Aborts the provider's request when the run is cancelled. */
  abortSignal?: AbortSignal;
}

/** A reader of the stream `doStream` returns (a web `ReadableStreamDefaultReader`). */
export interface AiSdkStreamReader {
  /** The next stream part, or `done`. */
  read(): PromiseLike<{ readonly done: boolean; readonly value?: unknown }>;
  /** Cancels the stream, ending a pending read. */
  cancel(reason?: unknown): PromiseLike<void>;
  /** Releases the reader's lock on the stream. */
  releaseLock(): void;
}

/** What `doStream` resolves to: a web `ReadableStream` of stream parts, and more the adapter does not read. */
export interface AiSdkStreamResult {
  /** The stream parts. */
  readonly stream: { getReader(): AiSdkStreamReader };
}

/** A Vercel AI SDK language model of specification version 3 or 4 (`LanguageModelV3`, `LanguageModelV4`), as the adapter uses it. */
export interface AiSdkLanguageModel {
  /** `'v3'` (the providers of ai 6) or `'v4'` (the providers of ai 7). */
  readonly specificationVersion: 'v3' | 'v4';
  /** The provider's id (`anthropic.messages`, `openai.chat`, ...). */
  readonly provider: string;
  /** The provider's model id. */
  readonly modelId: string;
  /** Streams one response. */
  doStream(options: AiSdkCallOptions): PromiseLike<AiSdkStreamResult>;
}
