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

/**
 * Where snapshots are kept by session id: an agent with a session saves one after every completed turn. A store
 * that also has `loadRecord` keeps revisions ({@link RevisionedSessionStore}).
 */
export interface SessionStore {
  /** The snapshot last saved under `sessionId`, or `undefined` when there is none. */
  load(sessionId: string): AgentSnapshot | undefined | PromiseLike<AgentSnapshot | undefined>;
  /**
   * Keeps `snapshot` under `sessionId`, replacing what was there. A store that keeps revisions checks
   * `options.expectedRevision` first and returns the new revision; others may ignore `options`.
   */
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a store without revisions returns nothing, as it always could
  save(sessionId: string, snapshot: AgentSnapshot, options?: SessionSaveOptions): void | string | PromiseLike<void | string>;
}

/**
 * The revision a save or delete expects the store to hold (MW-253): the one the caller loaded or last wrote,
 * `null` when it loaded no snapshot. Absent, the store writes whatever it holds.
 */
export interface SessionSaveOptions {
  /** The revision expected, `null` for "no snapshot"; another one fails with `ERR_SESSION_CONFLICT`. */
  readonly expectedRevision?: string | null | undefined;
}

/** A snapshot together with the revision it was saved as. */
export interface SessionRecord {
  /** The snapshot. */
  readonly snapshot: AgentSnapshot;
  /** The revision: a string the store never gave before for this session id. */
  readonly revision: string;
}

/**
 * A session store several workers can share (MW-253): every save writes a new revision, and a save or delete
 * that names the revision it expects fails with `ERR_SESSION_CONFLICT`, writing nothing, when another save or
 * delete got there first. `Agent.fromSession` reads the revision with `loadRecord` and every save of the agent
 * passes the revision it knows, so two workers resuming one halted session cannot both win.
 */
export interface RevisionedSessionStore extends SessionStore {
  /** The snapshot last saved under `sessionId` with its revision, or `undefined` when there is none. */
  loadRecord(sessionId: string): SessionRecord | undefined | PromiseLike<SessionRecord | undefined>;
  /**
   * Keeps `snapshot` under `sessionId` as a new revision, and returns that revision.
   *
   * @throws MiddlewareError `ERR_SESSION_CONFLICT` when `options.expectedRevision` is given and the store holds
   *   another revision (or a snapshot where `null` was expected, or none where a revision was).
   */
  save(sessionId: string, snapshot: AgentSnapshot, options?: SessionSaveOptions): string | PromiseLike<string>;
  /**
   * Removes the session's snapshot; returns whether there was one.
   *
   * @throws MiddlewareError `ERR_SESSION_CONFLICT` as `save` does.
   */
  delete(sessionId: string, options?: SessionSaveOptions): boolean | PromiseLike<boolean>;
}

/** An agent's session: the store it saves to, and the id it saves under. */
export interface AgentSession {
  /** Where the snapshots go. */
  readonly store: SessionStore;
  /** The session's id (non-empty). */
  readonly id: string;
}
