/**
 * Pure types of the agent kit: provider-neutral messages and content blocks,
 * tool specs, model stream events, the result event of each stage, and the
 * shapes of models and tools the reference agent runs. No runtime code lives here.
 *
 * @packageDocumentation
 */
import type { Draft } from 'immer';
import type { SystemContentBlock } from '../system-prompt';

/** Who wrote a message. */
export type Role = 'user' | 'assistant';

/** Plain text. */
export interface TextBlock {
  /** Block kind. */
  readonly type: 'text';
  /** The text. */
  readonly text: string;
}

/** The model asks for a tool call. */
export interface ToolUseBlock {
  /** Block kind. */
  readonly type: 'toolUse';
  /** Identifies the call; the matching tool result carries the same id. */
  readonly toolUseId: string;
  /** Name of the tool to call. */
  readonly name: string;
  /** The tool's input (parsed JSON). */
  readonly input: unknown;
}

/** Structured content of a tool result. */
export interface JsonBlock {
  /** Block kind. */
  readonly type: 'json';
  /** Any JSON value. */
  readonly json: unknown;
}

/** What a tool call produced, sent back to the model in a user message. */
export interface ToolResultBlock {
  /** Block kind. */
  readonly type: 'toolResult';
  /** The id of the tool use this answers. */
  readonly toolUseId: string;
  /** `'error'` when the tool failed, was unknown or was blocked. */
  readonly status: 'success' | 'error';
  /** The result content. */
  readonly content: readonly (TextBlock | JsonBlock)[];
}

/** The model's visible reasoning. */
export interface ReasoningBlock {
  /** Block kind. */
  readonly type: 'reasoning';
  /** The reasoning text. */
  readonly text: string;
  /** Provider signature that lets the reasoning be sent back, if any. */
  readonly signature?: string;
}

/** A cache point inside a message: providers that cache prompts cache everything before it. */
export interface CachePointBlock {
  /** Block kind. */
  readonly type: 'cachePoint';
  /** Provider-defined cache type (`'default'`, say). */
  readonly cacheType: string;
}

/** One block of message content. */
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | ReasoningBlock | CachePointBlock;

/** One message of a conversation. */
export interface Message {
  /** Who wrote it. */
  readonly role: Role;
  /** Its content blocks, in order. */
  readonly content: readonly ContentBlock[];
}

/** A JSON schema, as providers take tool input schemas. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** Describes a tool to the model. */
export interface ToolSpec {
  /** The name the model calls it by. */
  readonly name: string;
  /** What it does, for the model. */
  readonly description: string;
  /** JSON schema of its input. */
  readonly inputSchema: JsonSchema;
}

/** How the model may use tools: freely, at least one, or one named tool. */
export type ToolChoice =
  | { readonly type: 'auto' }
  | { readonly type: 'any' }
  | { readonly type: 'tool'; readonly name: string };

/**
 * Why a model turn or an agent run stopped. `interrupt` and `cancelled` are
 * set by the agent (a tool asked a human; the run was cancelled); the others come from the model.
 */
export type StopReason =
  | 'endTurn'
  | 'toolUse'
  | 'maxTokens'
  | 'stopSequence'
  | 'contentFiltered'
  | 'interrupt'
  | 'cancelled';

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
  | MessageStartEvent
  | TextDeltaEvent
  | ReasoningDeltaEvent
  | ToolUseStartEvent
  | ToolUseDeltaEvent
  | UsageEvent
  | MessageStopEvent;

/** The result of InvokeModelStage: the assembled message. */
export interface ModelResultEvent {
  /** Event kind. */
  readonly type: 'modelResult';
  /** The assistant message. */
  readonly message: Message;
  /** Why the model stopped; `'toolUse'` makes the agent run the message's tool uses. */
  readonly stopReason: StopReason;
  /** Token counts (zeros when the model reported none). */
  readonly usage: Usage;
}

/** Everything InvokeModelStage yields. */
export type InvokeModelEvent = ModelStreamEvent | ModelResultEvent;

/** The result of ExecuteToolStage. */
export interface ToolResultEvent {
  /** Event kind. */
  readonly type: 'toolResult';
  /** The block sent back to the model. */
  readonly toolResult: ToolResultBlock;
  /** What the tool threw, when it threw (so middleware can see it); absent otherwise. */
  readonly error?: unknown;
}

/** A pending question to a human, raised by `interrupt()` in ExecuteToolStage. */
export interface Interrupt {
  /** Deterministic: `<stage name>:<tool-use id>:<name>`. */
  readonly id: string;
  /** What is asked (`'approve'`, say). */
  readonly name: string;
  /** Why, for the human. */
  readonly reason: unknown;
}

/** The result of AgentStreamStage: how the run ended. */
export interface AgentResultEvent {
  /** Event kind. */
  readonly type: 'agentResult';
  /** Why the run stopped (`interrupt` and `cancelled` included). */
  readonly stopReason: StopReason;
  /** The last assistant message of the run, if there was one. */
  readonly message: Message | undefined;
  /** The interrupts waiting for responses (empty unless `stopReason` is `'interrupt'`). */
  readonly interrupts: readonly Interrupt[];
  /** Token counts summed over the run's model calls. */
  readonly usage: Usage;
}

/** Everything AgentStreamStage (and so `agent.stream()`) yields. */
export type AgentEvent = InvokeModelEvent | ToolResultEvent | AgentResultEvent;

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
  /** A draft of the agent's model state; written back only when the whole chain succeeds. */
  readonly state: Draft<TModelState>;
}

/** A model provider, seen through one method. */
export interface Model<TModelState = Record<string, unknown>> {
  /** Streams one response. */
  stream(request: ModelRequest, options: ModelCallOptions<TModelState>): AsyncIterable<ModelStreamEvent>;
}

/** What a tool learns about its call. */
export interface ToolRunContext {
  /** The tool use being answered. */
  readonly toolUse: ToolUseBlock;
  /** The agent run's abort signal. */
  readonly signal: AbortSignal;
  /** The run's invocation state (shared by reference). */
  readonly invocationState: Record<string, unknown>;
  /** Asks a human; see {@link ExecuteToolContext.interrupt}. */
  readonly interrupt: InterruptFunction;
}

/** A tool the agent can run. */
export interface Tool {
  /** How the model sees it. */
  readonly spec: ToolSpec;
  /**
   * Runs it. A string result becomes a text block, anything else a JSON
   * block; a throw becomes an error result.
   */
  run(input: unknown, context: ToolRunContext): unknown;
}

/** What `interrupt()` takes. */
export interface InterruptRequest {
  /** What is asked; part of the interrupt id. */
  readonly name: string;
  /** Why, for the human. */
  readonly reason?: unknown;
  /** A response known in advance: no halt, unless a stored response exists (which wins). */
  readonly response?: unknown;
}

/**
 * Asks a human. Returns `{ response }` when a response is known (stored by
 * a resume, or pre-supplied); otherwise throws an `InterruptSignal` that halts
 * the agent with stop reason `'interrupt'`.
 */
export type InterruptFunction = (request: InterruptRequest) => { readonly response: unknown };

/** Context of InvokeModelStage. */
export interface InvokeModelContext<TModelState = Record<string, unknown>> {
  /** The model (shared by reference, not frozen). */
  readonly model: Model<TModelState>;
  /** The conversation, frozen and shared with the agent's history. */
  readonly messages: readonly Message[];
  /** The system prompt, always as blocks. */
  readonly systemPrompt: readonly SystemContentBlock[];
  /** The tools the model may call. */
  readonly toolSpecs: readonly ToolSpec[];
  /** How it may call them. */
  readonly toolChoice?: ToolChoice;
  /** The run's invocation state (shared by reference, not frozen). */
  readonly invocationState: Record<string, unknown>;
}

/** Context of ExecuteToolStage. */
export interface ExecuteToolContext {
  /** The tool, or undefined when the model named a tool the agent does not have. */
  readonly tool: Tool | undefined;
  /** The call. */
  readonly toolUse: { readonly name: string; readonly toolUseId: string; readonly input: unknown };
  /** The run's invocation state (shared by reference, not frozen). */
  readonly invocationState: Record<string, unknown>;
  /** The agent run's abort signal. */
  readonly signal: AbortSignal;
  /** Asks a human; see {@link InterruptFunction}. */
  readonly interrupt: InterruptFunction;
}

/** Context of AgentStreamStage. */
export interface AgentStreamContext {
  /** The messages this run adds to the history first (empty on a resume). */
  readonly messages: readonly Message[];
  /** The run's invocation state (shared by reference, not frozen). */
  readonly invocationState: Record<string, unknown>;
}
