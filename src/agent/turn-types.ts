/**
 * The context, result and actions of TurnStage: the decision taken after
 * each turn of the loop (one model call and the tool calls it asked for).
 * Pure types.
 *
 * @packageDocumentation
 */
import type { Message, ToolResultBlock } from './message-types';
import type { AttemptBoundaryEvent, StopReason, Usage } from './model-types';
import type { AgentView } from './stage-types';

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
}
