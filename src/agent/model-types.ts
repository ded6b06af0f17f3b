/**
 * What a model streams and receives: stop reasons, token counts, stream
 * events, the request, and the model interface itself. Pure types.
 *
 * @packageDocumentation
 */
import type { Draft } from 'immer';
import type { SystemContentBlock } from '../system-prompt';
import type { Message, Role } from './message-types';
import type { ToolChoice, ToolSpec } from './tool-types';

/**
 * Why a model turn or an agent run stopped. `interrupt`, `cancelled` and
 * `stopped` are set by the agent (a tool or handler asked a human; the run
 * was cancelled; a TurnStage handler stopped it); the others come from the model.
 */
export type StopReason = 'endTurn' | 'toolUse' | 'maxTokens' | 'stopSequence' | 'contentFiltered' | 'interrupt' | 'cancelled' | 'stopped';

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

/** A piece of a tool use's input, as JSON text; the pieces are joined and parsed. */
export interface ToolUseDeltaEvent {
  /** Event kind. */
  readonly type: 'toolUseDelta';
  /** The JSON text piece. */
  readonly input: string;
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

/** A model provider, seen through one method. */
export interface Model<TModelState = Record<string, unknown>> {
  /** The model's name as the provider knows it (`'gpt-4o'`), for traces (`gen_ai.request.model`); optional. */
  readonly modelId?: string;
  /** Streams one response. */
  stream(request: ModelRequest, options: ModelCallOptions<TModelState>): AsyncIterable<ModelStreamEvent>;
}
