/**
 * The context, result and events of CompressContextStage: what the agent
 * does when the history outgrows a budget (MW-163 – MW-166). Pure types.
 *
 * @packageDocumentation
 */
import type { SystemContentBlock, SystemPrompt } from '../core/index';
import type { Message } from './message-types';
import type { Model, Usage } from './model-types';
import type { AgentView, ModelResultEvent } from './stage-types';
import type { ToolSpec } from './tool-types';

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
