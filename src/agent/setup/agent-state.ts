/**
 * What the run functions of the reference agent share with the `Agent`
 * object: its setup, read once by `new Agent()`, and the conversation state
 * it commits. Pure types.
 *
 * @packageDocumentation
 */
import type { OwnedAbortController } from '../../core/internal';
import type { Contribution, MiddlewareRegistry } from '../../core/index';
import type { SystemContentBlock } from '../../core/index';
import type { History } from '../session/history';
import type { Model, Usage } from '../types/model';
import type { SuspendedRun } from '../session/suspended-run';
import type { AgentSession } from '../types/snapshot';
import type { AgentView } from '../types/view';
import type { Tool, ToolChoice, ToolSpec } from '../types/tool';

/** The agent's setup and its committed conversation state, as the run functions see them. */
export interface AgentState {
  /** The registry whose handlers run around every stage. */
  readonly registry: MiddlewareRegistry;
  /** The model. */
  readonly model: Model;
  /** The tools by name. */
  readonly tools: ReadonlyMap<string, Tool>;
  /** Frozen copies of the tools' specs. */
  readonly toolSpecs: readonly ToolSpec[];
  /** Frozen blocks, computed once, so building a model context copies nothing. */
  readonly systemPrompt: readonly SystemContentBlock[] | undefined;
  /** The tool choice passed to every model call. */
  readonly toolChoice: ToolChoice | undefined;
  /** What handlers see of the agent with its own tools (frozen; a run with contributed tools has a view of its own). */
  readonly view: AgentView;
  /** Whether tools contributed in the registry's ancestors join the tool list (`options.inheritTools`). */
  readonly inheritTools: boolean;
  /** The most turns one terminal call of a run makes (`options.maxTurns`; `Infinity`: no limit). */
  readonly maxTurns: number;
  /** The tool list the last run with contributed tools resolved, reused while the contributions are the same. */
  toolListCache: ToolListCache | undefined;
  /** Where the agent saves its snapshot, if it has a session. */
  readonly session: AgentSession | undefined;
  /**
   * The revision of the session the agent last loaded or saved (MW-254), `null` when it loaded none; `undefined`
   * while it knows none, and its saves are not checked.
   */
  sessionRevision: string | null | undefined;
  /** The committed history. */
  history: History;
  /** The committed model state (frozen); `agent.modelState = value` replaces it. */
  modelState: Record<string, unknown>;
  /** The halted run, if any. */
  halt: SuspendedRun | undefined;
  /** Token counts summed over the agent results of the runs that committed. */
  usage: Usage;
  /** The controller of the running run, if one is going. */
  running: OwnedAbortController | undefined;
}

/** The last tool list a run resolved, so runs with the same contributions share one view. */
export interface ToolListCache {
  /** The contributions it was built from (the registry hands out the same array while nothing changes). */
  readonly contributions: readonly Contribution<Tool>[];
  /** Its tools by name. */
  readonly tools: ReadonlyMap<string, Tool>;
  /** Its specs. */
  readonly toolSpecs: readonly ToolSpec[];
  /** Its view. */
  readonly view: AgentView;
}
