/**
 * What a run of the reference agent works on: the conversation state it
 * starts from and commits, the copy each AgentStreamStage terminal call works
 * on, and the state the AgentStreamStage invoke carries between them. Pure types.
 *
 * @packageDocumentation
 */
import type { MiddlewareUsage } from '../types/stages';
import type { History } from '../session/history';
import type { Usage } from '../types/model';
import type { SuspendedRun } from '../session/suspended-run';
import type { Interrupt } from '../types/tool';

/** What a run accumulates over all its terminal calls, readable even when the run is cancelled. */
export interface RunTally {
  /** Token counts summed over every model call of the run that completed so far. */
  usage: Usage;
  /** Token counts of the middleware calls and delegating tools of the run so far, by who made them. */
  middlewareUsage: MiddlewareUsage;
  /** The last checkpoint of the terminal call closed last before it completed (MW-128), if any. */
  closed: Conversation | undefined;
  /** Whether a terminal call of the run completed (its generator finished normally). */
  completed: boolean;
  /** Whether a terminal call of the run yielded its agent result: a question about the whole run comes too late then. */
  produced: boolean;
  /** Whether the run ended: no interrupt of it can halt anything any more. */
  ended: boolean;
  /** The questions of its tool calls it has yielded interrupt events for, in order (MW-290). */
  readonly shown: Interrupt[];
}

/** The conversation state a run starts from and, when it succeeds, leaves behind. */
export interface Conversation {
  /** The history. */
  readonly history: History;
  /** The model state (frozen). */
  readonly modelState: Record<string, unknown>;
  /** The halted run, if any. */
  readonly halt: SuspendedRun | undefined;
  /** Token counts summed over the agent results of the runs that committed. */
  readonly usage: Usage;
}

/**
 * What one AgentStreamStage terminal call works on: its own copy of the
 * conversation, started from the run's start, so that a retried or hedged
 * call neither sees nor disturbs what another call appended.
 */
export interface Attempt {
  /** Its own history, started from the run's start history (sharing its frozen messages). */
  readonly history: History;
  /** Its model state, replaced by each of its model calls whose chain succeeds. */
  modelState: Record<string, unknown>;
  /** The halted run it leaves behind, if any. */
  halt: SuspendedRun | undefined;
  /** Token counts of its own model calls (what its agent result reports). */
  usage: Usage;
  /** Token counts of the model calls middleware and delegating tools made for it, by who made them. */
  middlewareUsage: MiddlewareUsage;
}

/**
 * The AgentStreamStage invoke's state (MW-027 – MW-029): the conversation the
 * terminal call produced. The core keeps the value of the last terminal call
 * that completed and hands it to `set()` only when the whole chain succeeds,
 * which is exactly when a run's conversation is committed.
 */
export interface RunState {
  /** Set by a terminal call just before it ends; frozen, so immer keeps it as it is. */
  outcome: Conversation | undefined;
}
