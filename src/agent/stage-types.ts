/**
 * The contexts, events and results of the three agent stages. Pure types.
 *
 * @packageDocumentation
 */
import type { MiddlewareRegistry } from '../core/index';
import type { SystemContentBlock } from '../core/index';
import type { ContextCompressedEvent } from './context-types';
import type { Message, ToolResultBlock } from './message-types';
import type { AttemptBoundaryEvent, Model, ModelStreamEvent, StopReason, Usage } from './model-types';
import type { Interrupt, InterruptFunction, Tool, ToolChoice, ToolSpec } from './tool-types';
import type { StoppedBy } from './turn-types';

/** What handlers may read of the running agent: frozen, and holding nothing that changes it. */
export interface AgentView {
  /** The agent's name (`options.name`, default `'agent'`). */
  readonly name: string;
  /** The id of the agent's session, when it has one. */
  readonly sessionId: string | undefined;
  /** The tool specs the model receives: the agent's own tools and those bundles contribute. */
  readonly tools: readonly ToolSpec[];
  /** The agent and tool call this agent works for, when it is a sub-agent. */
  readonly parent?: AgentParent;
}

/** The agent and tool call a sub-agent works for. */
export interface AgentParent {
  /** The parent agent's name. */
  readonly name: string;
  /** The id of the parent's tool use that delegated to this agent. */
  readonly toolUseId: string;
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

/** Everything InvokeModelStage yields: the model's events, its result, and the boundaries of live attempts (MW-184). */
export type InvokeModelEvent = ModelStreamEvent | ModelResultEvent | AttemptBoundaryEvent;

/** The result of ExecuteToolStage. */
export interface ToolResultEvent {
  /** Event kind. */
  readonly type: 'toolResult';
  /** The block sent back to the model. */
  readonly toolResult: ToolResultBlock;
  /** What the tool threw, when it threw (so middleware can see it); absent otherwise. */
  readonly error?: unknown;
  /** Token counts of model calls made to produce this result (a sub-agent's), reported in the agent result's `middlewareUsage`. */
  readonly usage?: Usage;
  /** True ends the run after this turn (the TurnStage terminal decides `'stop'`). */
  readonly terminate?: boolean;
}

/** Everything ExecuteToolStage yields: its result, and the boundaries of live attempts (MW-184). */
export type ExecuteToolEvent = ToolResultEvent | AttemptBoundaryEvent;

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
  /** Who stopped the run; present exactly when `stopReason` is `'stopped'` or `'maxTurns'`. */
  readonly stoppedBy?: StoppedBy;
  /** Token counts of the model calls middleware and delegating tools made for the run, by who made them; absent when there were none. */
  readonly middlewareUsage?: Readonly<Record<string, Usage>>;
}

/** An interrupt raised during the run, yielded the moment it is raised (the run halts when its tool calls are done). */
export interface InterruptEvent {
  /** Event kind. */
  readonly type: 'interrupt';
  /** The interrupt, as the agent result's `interrupts` lists it. */
  readonly interrupt: Interrupt;
}

/** Everything AgentStreamStage (and so `agent.stream()`) yields, the boundaries of live attempts included (MW-184). */
export type AgentEvent = InvokeModelEvent | ToolResultEvent | InterruptEvent | ContextCompressedEvent | AgentResultEvent;

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
  /** The model state the call starts from (frozen, read-only: only the model's draft changes it); absent when none is given. */
  readonly modelState?: Readonly<Record<string, unknown>>;
  /** Who makes the call when it is not the agent's own: the middleware's name (`'compaction'`, say); absent for the agent's calls. */
  readonly caller?: string;
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
  /** A new child of the registry the run invokes its stages on (a sub-agent runs on one); absent when a framework's own loop gives none. */
  readonly childRegistry?: () => MiddlewareRegistry;
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
