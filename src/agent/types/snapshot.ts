/**
 * The JSON form of an agent's resumable state, and where it is kept between
 * processes (MW-136, MW-137). Pure types.
 *
 * @packageDocumentation
 */
import type { Message, ToolResultBlock } from './message';
import type { Usage } from './model';
import type { Interrupt } from './tool';

/** The format version this copy of the library writes and reads. */
export type AgentSnapshotVersion = 1;

/**
 * Everything an agent needs to go on where it stopped, as plain JSON: the
 * history, the model state, the token counts of its runs, and the halted
 * run a resume continues, if any.
 */
export interface AgentSnapshot {
  /** The format version; a copy of the library refuses a format it does not read. */
  readonly version: AgentSnapshotVersion;
  /** The history. */
  readonly messages: readonly Message[];
  /** The model state. */
  readonly modelState: Readonly<Record<string, unknown>>;
  /** Token counts summed over the agent results of the runs that committed. */
  readonly usage: Usage;
  /** The halted run, or `null` when nothing is pending. */
  readonly halted: HaltedRunSnapshot | null;
}

/** A halted run, as an {@link AgentSnapshot} keeps it. */
export interface HaltedRunSnapshot {
  /** The pending interrupts (each `reason` as its JSON form, `null` when it has none). */
  readonly interrupts: readonly Interrupt[];
  /** The responses given so far, by interrupt id. */
  readonly responses: Readonly<Record<string, unknown>>;
  /** The input messages the resume replays. */
  readonly input: readonly Message[];
  /** The turn the resume finishes first, or `null`. */
  readonly turn: HaltedTurnSnapshot | null;
  /** The halted run's invocation state: its properties that have a JSON form. */
  readonly invocationState: Readonly<Record<string, unknown>>;
}

/** A turn halted in its tool calls. */
export interface HaltedTurnSnapshot {
  /** The assistant message whose tool uses the turn runs. */
  readonly message: Message;
  /** The tool results already known, in the order they were found. */
  readonly results: readonly ToolResultBlock[];
  /** The tool uses among them whose result asked to end the run; present only when there are any. */
  readonly terminating?: readonly string[];
}

/** Where snapshots are kept by session id: an agent with a session saves one after every completed turn. */
export interface SessionStore {
  /** The snapshot last saved under `sessionId`, or `undefined` when there is none. */
  load(sessionId: string): AgentSnapshot | undefined | PromiseLike<AgentSnapshot | undefined>;
  /** Keeps `snapshot` under `sessionId`, replacing what was there. */
  save(sessionId: string, snapshot: AgentSnapshot): void | PromiseLike<void>;
}

/** An agent's session: the store it saves to, and the id it saves under. */
export interface AgentSession {
  /** Where the snapshots go. */
  readonly store: SessionStore;
  /** The session's id (non-empty). */
  readonly id: string;
}
