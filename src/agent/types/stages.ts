/**
 * The contracts of the agent's five stages: the context each invoke takes,
 * the events it yields and the result it ends with, in the order a run meets
 * them (InvokeModelStage, ExecuteToolStage, TurnStage, CompressContextStage,
 * AgentStreamStage). The stage tokens themselves are in `stages.ts`; what
 * handlers see of the agent is in `view.ts`. Pure types.
 *
 * @packageDocumentation
 */
import type { MiddlewareRegistry, SystemContentBlock, SystemPrompt } from '../../core/index';
import type { Message, ToolResultBlock } from './message';
import type { AttemptBoundaryEvent } from '../../middleware/index';
import type { Model, ModelStreamEvent, StopReason, Usage } from './model';
import type { Interrupt, InterruptFunction, Tool, ToolChoice, ToolSpec } from './tool';
import type { AgentView } from './view';

// InvokeModelStage: one model call.

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
  /**
   * Makes a model call on the run's behalf before this one (a tool selection, say), as CompressContextStage's
   * `invokeModel` does (MW-282): in the reference agent's own calls; absent in a call middleware makes and when a
   * framework's own loop gives none.
   */
  readonly invokeModel?: MiddlewareModelCaller;
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

// ExecuteToolStage: one tool call.

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
  /** The same key every time this call runs, in any process (`<runId>:<tool-use id>` in a durable run, MW-249); absent when no layer gives one. */
  readonly idempotencyKey?: string;
  /**
   * Makes a model call on the run's behalf through InvokeModelStage, its usage counted apart under its `caller`
   * (MW-342); absent when a framework's own loop gives none.
   */
  readonly invokeModel?: MiddlewareModelCaller;
}

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

/** An event of a sub-agent's run, on its parent's stream before the result of the tool call that ran it (MW-339). */
export interface SubagentEvent {
  /** Event kind. */
  readonly type: 'subagentEvent';
  /** The sub-agent's name. */
  readonly agent: string;
  /** The parent's tool call the sub-agent works for. */
  readonly toolUseId: string;
  /** The child's event, as its stream yielded it. */
  readonly event: AgentEvent;
}

/** Everything ExecuteToolStage yields: its result, the boundaries of live attempts (MW-184), and a sub-agent's events (MW-339). */
export type ExecuteToolEvent = ToolResultEvent | AttemptBoundaryEvent | SubagentEvent;

// TurnStage: the decision after each turn (one model call and the tool calls it asked for).

/**
 * What the loop does after a turn: `'natural'` goes on when the turn ran
 * tools and ends the run when it ran none; `'loopToModel'` calls the model
 * again either way; `'stop'` ends the run after this turn.
 */
export type TurnDecision = 'natural' | 'loopToModel' | 'stop';

/** Who stopped a run, and why. */
export interface StoppedBy {
  /** The name of the handler that asked to stop; `'maxTurns'` when the run reached its turn limit. */
  readonly handler: string;
  /** Why, in its words, when it said. */
  readonly reason?: string;
}

/** The turn a TurnStage context describes. */
export interface TurnInfo {
  /** Counts the turns of the loop's current pass from 1. */
  readonly index: number;
  /** The assistant message the turn appended. */
  readonly message: Message;
  /** The tool results the turn appended (empty when it ran no tools). */
  readonly toolResults: readonly ToolResultBlock[];
  /** The stop reason of the turn's model result. */
  readonly stopReason: StopReason;
  /** The first tool call of the turn whose result asked to end the run (`terminate: true`), if any. */
  readonly terminate?: { readonly tool: string; readonly toolUseId: string };
}

/** Context of TurnStage. */
export interface TurnContext {
  /** The history after the turn (frozen, shared with the agent's history). */
  readonly messages: readonly Message[];
  /** The turn just completed. */
  readonly turn: TurnInfo;
  /** True when the `'natural'` decision would end the run (the turn ran no tools). */
  readonly ending: boolean;
  /** Token counts of the loop's model calls so far. */
  readonly usage: Usage;
  /** The run's invocation state (shared by reference, not frozen). */
  readonly invocationState: Record<string, unknown>;
  /** The agent's public surface, read-only; absent when a framework's own loop gives none. */
  readonly agent?: AgentView;
  /**
   * Makes a model call on the run's behalf through InvokeModelStage, its usage counted apart under its `caller`
   * (MW-342); absent when a framework's own loop gives none.
   */
  readonly invokeModel?: MiddlewareModelCaller;
}

/** The result of TurnStage: the decision and the messages to add. */
export interface TurnResultEvent {
  /** Event kind. */
  readonly type: 'turnResult';
  /** What the loop does next. */
  readonly decision: TurnDecision;
  /** Appended to the history after the turn, so the next model call sees them. */
  readonly inject: readonly Message[];
  /** Appended to the history only when the run ends after this turn. */
  readonly onRunEnd: readonly Message[];
  /** Who asked to stop; present exactly when `decision` is `'stop'`. */
  readonly stoppedBy?: StoppedBy;
  /** The assistant message that takes the place of the turn's in the history and the agent result, when a handler replaced it. */
  readonly response?: Message;
}

/** Everything TurnStage yields: its result, and the boundaries of live attempts (MW-184). */
export type TurnEvent = TurnResultEvent | AttemptBoundaryEvent;

/** What one handler decides about a turn; merged into the result by `mergeTurnAction`. */
export interface TurnAction {
  /** Its decision. Default `'natural'` (no opinion). */
  readonly decision?: TurnDecision;
  /** Messages to inject after the turn. */
  readonly inject?: readonly Message[];
  /** Messages to append when the run ends after this turn. */
  readonly onRunEnd?: readonly Message[];
  /** Why it stops (kept in `stoppedBy`). */
  readonly reason?: string;
  /**
   * An assistant message to put in the place of the turn's (MW-340), keeping its tool uses;
   * one a handler registered later (inner) gave wins.
   */
  readonly response?: Message;
}

// CompressContextStage: what the agent does when the history outgrows a budget (MW-163 – MW-166).

/** Counts the tokens of messages; `estimateTokens` is the default. */
export type TokenCounter = (messages: readonly Message[]) => number;

/** A context budget a bundle contributes under `ContextBudgetKey`: the agent compresses the history before a model call when it counts more. */
export interface ContextBudget {
  /** The most tokens the history may count before a model call. */
  readonly maxTokens: number;
  /** How the history is counted. Default: `estimateTokens`. */
  readonly countTokens?: TokenCounter;
}

/** A model call made by middleware for the run (a summary, say), through InvokeModelStage. */
export interface MiddlewareModelCall {
  /** Who makes it: the middleware's name, reported as the context's `caller` and in `middlewareUsage`. */
  readonly caller: string;
  /** What the model sees. */
  readonly messages: readonly Message[];
  /** Its system prompt. Default: none. */
  readonly systemPrompt?: SystemPrompt;
  /** Its tools. Default: none. */
  readonly toolSpecs?: readonly ToolSpec[];
  /** The model. Default: the agent's. */
  readonly model?: Model;
}

/** Makes a middleware-owned model call through InvokeModelStage and returns its result. */
export type MiddlewareModelCaller = (call: MiddlewareModelCall) => Promise<ModelResultEvent>;

/** Context of CompressContextStage. */
export interface CompressContextContext {
  /** The history, frozen and shared with the agent's. */
  readonly messages: readonly Message[];
  /** What the history counted, by the counter of the budget it exceeded. */
  readonly tokens: number;
  /** The `maxTokens` of that budget. */
  readonly maxTokens: number;
  /** The system prompt of the agent's model calls (as blocks). */
  readonly systemPrompt: readonly SystemContentBlock[];
  /** The tool specs of the agent's model calls. */
  readonly toolSpecs: readonly ToolSpec[];
  /** The agent's model (shared by reference, not frozen). */
  readonly model: Model;
  /** Makes a model call on the run's behalf through InvokeModelStage (its usage reported apart). */
  readonly invokeModel: MiddlewareModelCaller;
  /** The run's invocation state (shared by reference, not frozen). */
  readonly invocationState: Record<string, unknown>;
  /** The agent's public surface, read-only; absent when a framework's own loop gives none. */
  readonly agent?: AgentView;
}

/** The result of CompressContextStage: the history to go on with. */
export interface ContextResultEvent {
  /** Event kind. */
  readonly type: 'contextResult';
  /** The messages that replace the history (the context's own array: nothing changes). */
  readonly messages: readonly Message[];
}

/** Yielded on the run's stream when compression replaced the history: the messages it replaced are not lost. */
export interface ContextCompressedEvent {
  /** Event kind. */
  readonly type: 'contextCompressed';
  /** The whole history before compression. */
  readonly replaced: readonly Message[];
  /** The history after it. */
  readonly messages: readonly Message[];
  /** What the history counted before, by the budget it exceeded. */
  readonly tokens: number;
  /** That budget's `maxTokens`. */
  readonly maxTokens: number;
}

/** Token counts by who made model calls for the run; the type of `middlewareUsage`. */
export type MiddlewareUsage = Readonly<Record<string, Usage>>;

// AgentStreamStage: one whole run.

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

/** Everything AgentStreamStage (and so `agent.stream()`) yields, the boundaries of live attempts (MW-184) and sub-agents' events (MW-339) included. */
export type AgentEvent = InvokeModelEvent | ToolResultEvent | InterruptEvent | ContextCompressedEvent | AgentResultEvent | SubagentEvent;
