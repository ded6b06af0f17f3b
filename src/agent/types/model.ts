/**
 * What a model streams and receives: stop reasons, token counts, stream
 * events, the request, and the model interface itself. Pure types.
 *
 * @packageDocumentation
 */
import type { Draft } from 'immer';
import type { SystemContentBlock } from '../../core/index';
import type { Message, Role } from './message';
import type { ToolChoice, ToolSpec } from './tool';

/**
 * Why a model turn or an agent run stopped. `interrupt`, `cancelled`,
 * `stopped` and `maxTurns` are set by the agent (a tool or handler asked a
 * human; the run was cancelled; a TurnStage handler stopped it; the run
 * reached its turn limit); the others come from the model.
 */
export type StopReason =
  'endTurn' | 'toolUse' | 'maxTokens' | 'stopSequence' | 'contentFiltered' | 'interrupt' | 'cancelled' | 'stopped' | 'maxTurns';

/** Token counts of a model call (or summed over a run). */
export interface Usage {
  /** Tokens sent. */
  readonly inputTokens: number;
  /** Tokens generated. */
  readonly outputTokens: number;
  /** Their sum. */
  readonly totalTokens: number;
}

/** The model starts a message. */
export interface MessageStartEvent {
  /** Event kind. */
  readonly type: 'messageStart';
  /** The message's role (always `'assistant'` for a model). */
  readonly role: Role;
}

/** A piece of text; consecutive deltas form one text block. */
export interface TextDeltaEvent {
  /** Event kind. */
  readonly type: 'textDelta';
  /** The text piece. */
  readonly text: string;
}

/** A piece of reasoning; consecutive deltas form one reasoning block. */
export interface ReasoningDeltaEvent {
  /** Event kind. */
  readonly type: 'reasoningDelta';
  /** The reasoning piece. */
  readonly text: string;
}

/** A tool use begins; the following tool-use deltas carry its input. */
export interface ToolUseStartEvent {
  /** Event kind. */
  readonly type: 'toolUseStart';
  /** The tool use's id. */
  readonly toolUseId: string;
  /** The tool's name. */
  readonly name: string;
}

/**
 * A piece of a tool use's input, as JSON text; the pieces of one tool use are
 * joined and parsed. With parallel tool uses the pieces may interleave, so a
 * delta names its tool use by `toolUseId` (or, for providers that number tool
 * calls, by `index`); a delta naming neither belongs to the last block when
 * that block is a tool use.
 */
export interface ToolUseDeltaEvent {
  /** Event kind. */
  readonly type: 'toolUseDelta';
  /** The JSON text piece. */
  readonly input: string;
  /** The id of the tool use it belongs to (the `toolUseId` of its `toolUseStart`). */
  readonly toolUseId?: string;
  /** The position of that tool use among the message's tool uses, from 0; read only when `toolUseId` is absent. */
  readonly index?: number;
}

/** The model's token counts for this call. */
export interface UsageEvent {
  /** Event kind. */
  readonly type: 'usage';
  /** The counts. */
  readonly usage: Usage;
}

/** The model finished the message. */
export interface MessageStopEvent {
  /** Event kind. */
  readonly type: 'messageStop';
  /** Why it stopped. */
  readonly stopReason: StopReason;
}

/** One event of a model's stream. */
export type ModelStreamEvent =
  MessageStartEvent | TextDeltaEvent | ReasoningDeltaEvent | ToolUseStartEvent | ToolUseDeltaEvent | UsageEvent | MessageStopEvent;

/** What a model receives for one call. */
export interface ModelRequest {
  /** The conversation (frozen). */
  readonly messages: readonly Message[];
  /** The system prompt's text blocks joined with newlines, for providers that take a string. */
  readonly systemPrompt: string;
  /** The system prompt as blocks, cache points kept, for providers that take blocks. */
  readonly systemBlocks: readonly SystemContentBlock[];
  /** The tools the model may call. */
  readonly toolSpecs: readonly ToolSpec[];
  /** How it may call them, if constrained. */
  readonly toolChoice: ToolChoice | undefined;
}

/** What a model learns about the call besides the request. */
export interface ModelCallOptions<TModelState> {
  /** Aborts when the agent run is cancelled. */
  readonly signal: AbortSignal;
  /** A draft of the agent's model state, written back only when the whole chain succeeds; undefined when the invoke has no state binding (`invoke(InvokeModelStage, context, modelTerminal)` without `{ state }`). */
  readonly state: Draft<TModelState> | undefined;
}

/**
 * A model provider, seen through one method (the model contract, MW-182).
 *
 * - **A failure throws**: when the provider fails, `stream()` throws or the
 *   iteration rejects with the provider's error as its client gave it; never
 *   an event. A thrown error takes the chain's failure path, where `retry`,
 *   `fallback` and `errorsAsAnswers` act on it and no Output handler runs; an
 *   event would be assembled into a result the loop takes for the answer.
 * - **Optional events**: `messageStart`, `usage` and `messageStop` may be left
 *   out (stop reason `'endTurn'`, zero usage); yield `messageStop` with
 *   `'toolUse'` when the model asks for tools, or the agent runs none.
 * - **Order**: `messageStart` first and once; `messageStop` once, with no
 *   block event after it; each `toolUseStart` before its deltas, ids distinct
 *   within a response; interleaved tool-use deltas name their `toolUseId`.
 * - **Errors for `retry`**: keep the provider's `status` or `statusCode`,
 *   `isRetryable`, and the response headers (`headers` or `responseHeaders`,
 *   with `retry-after`) on the error, so `retry` retries 429 and 5xx, waits
 *   what the server asked, and gives up on other 4xx.
 * - **Cancellation**: hand `options.signal` to the provider's client.
 *
 * @example
 * ```ts
 * const model: Model = {
 *   async *stream(request, { signal }) {
 *     const response = await client.chat(toProviderRequest(request), { signal }); // throws the client's error
 *     for await (const chunk of response) yield* toStreamEvents(chunk);
 *   },
 * };
 * ```
 */
export interface Model<TModelState = Record<string, unknown>> {
  /** The model's name as the provider knows it (`'gpt-4o'`), for traces (`gen_ai.request.model`); optional. */
  readonly modelId?: string;
  /** Streams one response; throws (never yields an event) when the provider fails. */
  stream(request: ModelRequest, options: ModelCallOptions<TModelState>): AsyncIterable<ModelStreamEvent>;
}
