/**
 * The contexts, events and results of the three agent stages. Pure types.
 *
 * @packageDocumentation
 */
import type { SystemContentBlock } from '../system-prompt';
import type { Message, ToolResultBlock } from './message-types';
import type { Model, ModelStreamEvent, StopReason, Usage } from './model-types';
import type { Interrupt, InterruptFunction, Tool, ToolChoice, ToolSpec } from './tool-types';
import type { StoppedBy } from './turn-types';

/** What handlers may read of the running agent: frozen, and holding nothing that changes it. */
export interface AgentView {
  /** The agent's name (`options.name`, default `'agent'`). */
  readonly name: string;
  /** The id of the agent's session, when it has one. */
  readonly sessionId: string | undefined;
  /** The tool specs the model receives. */
  readonly tools: readonly ToolSpec[];
}

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
  /** Token counts summed over the model calls of the attempt (AgentStreamStage terminal call) that made this result, MW-119; for a cancelled or halted run, over every model call of the run that completed. */
  readonly usage: Usage;
  /** Who stopped the run; present exactly when `stopReason` is `'stopped'`. */
  readonly stoppedBy?: StoppedBy;
}

/** An interrupt raised during the run, yielded the moment it is raised (the run halts when its tool calls are done). */
export interface InterruptEvent {
  /** Event kind. */
  readonly type: 'interrupt';
  /** The interrupt, as the agent result's `interrupts` lists it. */
  readonly interrupt: Interrupt;
}

/** Everything AgentStreamStage (and so `agent.stream()`) yields. */
export type AgentEvent = InvokeModelEvent | ToolResultEvent | InterruptEvent | AgentResultEvent;

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
  /** The agent's public surface, read-only; absent when a framework's own loop gives none. */
  readonly agent?: AgentView;
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
  /** The agent's public surface, read-only; absent when a framework's own loop gives none. */
  readonly agent?: AgentView;
}

/** Context of AgentStreamStage. */
export interface AgentStreamContext {
  /** The messages this run adds to the history first (on a resume, what it replays: empty for a halted turn). */
  readonly messages: readonly Message[];
  /** The run's invocation state (shared by reference, not frozen). */
  readonly invocationState: Record<string, unknown>;
  /** Asks a human about the whole run (ids `agentStream:<name>`); keeps working in a spread copy of the context. */
  readonly interrupt: InterruptFunction;
  /** The agent's public surface, read-only; absent when a framework's own loop gives none. */
  readonly agent?: AgentView;
}
