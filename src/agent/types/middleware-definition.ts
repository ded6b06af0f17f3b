/**
 * The types of `defineMiddleware` (MW-315): one object per concern, its hooks
 * keyed by the stage they run on and the phase they run in.
 */
import type { AddOptions, InputHandler, Middleware, OutputHandler, Registrar, WrapHandler } from '../../core/index';
import type {
  AgentEvent,
  AgentResultEvent,
  AgentStreamContext,
  CompressContextContext,
  ContextResultEvent,
  ExecuteToolContext,
  ExecuteToolEvent,
  InvokeModelContext,
  InvokeModelEvent,
  ModelResultEvent,
  ToolResultEvent,
  TurnContext,
  TurnEvent,
  TurnResultEvent,
} from './stages';
import type { Tool } from './tool';

/**
 * A hook with the options of `add`: its id defaults to
 * `<definition name>.<stage key>.<phase>`, its name to its id.
 */
export interface HookOptions<THandler> extends AddOptions {
  /** The handler. */
  readonly handler: THandler;
}

/** A hook: the handler alone, or the handler with the options of `add`. */
export type Hook<THandler> = THandler | HookOptions<THandler>;

/** The hooks of one stage, at most one per phase. */
export interface StageHooks<TContext, TResult extends TEvent, TEvent> {
  /** Runs before the call, transforming its context. */
  readonly input?: Hook<InputHandler<TContext>>;
  /** Runs around the call, as a layer of its onion. */
  readonly wrap?: Hook<WrapHandler<TContext, TEvent>>;
  /** Runs after the call, transforming its result. */
  readonly output?: Hook<OutputHandler<TResult>>;
}

/**
 * One concern as one object, for `defineMiddleware`: its hooks by stage, the
 * tools it contributes, and what else it registers.
 */
export interface MiddlewareDefinition {
  /** The bundle's name, and the first part of its hooks' ids. */
  readonly name: string;
  /** Hooks of AgentStreamStage: once around the whole run. */
  readonly run?: StageHooks<AgentStreamContext, AgentResultEvent, AgentEvent>;
  /** Hooks of TurnStage: the decision after each turn. */
  readonly turn?: StageHooks<TurnContext, TurnResultEvent, TurnEvent>;
  /** Hooks of InvokeModelStage: every model call. */
  readonly model?: StageHooks<InvokeModelContext, ModelResultEvent, InvokeModelEvent>;
  /** Hooks of ExecuteToolStage: every tool call. */
  readonly tool?: StageHooks<ExecuteToolContext, ToolResultEvent, ExecuteToolEvent>;
  /** Hooks of CompressContextStage: every compression of the history. */
  readonly compress?: StageHooks<CompressContextContext, ContextResultEvent, ContextResultEvent>;
  /** Tools the bundle contributes under `ToolsKey`. */
  readonly tools?: readonly Tool[];
  /** Bundles whose handlers and contributions become part of this one. */
  readonly use?: readonly Middleware[];
  /** Registers anything else (instrumentations, other contributions), last. */
  readonly setup?: (registrar: Registrar) => void;
}
