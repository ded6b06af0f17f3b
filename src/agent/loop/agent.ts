import { MiddlewareRegistry } from '../../core/index';
import type { AgentState } from '../setup/agent-state';
import type { AgentInput, AgentOptions, AgentRunOptions } from '../setup/agent-options';
import { runAgent } from './agent-run';
import { lastEvent } from '../../core/internal';
import { openRunScope } from '../setup/run-scope';
import { readAgentOptions, readSession } from '../setup/agent-setup';
import { frozenRecordCopy } from '../values/freeze';
import { History } from '../session/history';
import type { Message } from '../types/message';
import type { Usage } from '../types/model';
import type { AgentEvent, AgentResultEvent } from '../types/stages';
import type { Interrupt } from '../types/tool';
import { toSnapshot } from '../session/snapshot';
import type { AgentSession, AgentSnapshot, RevisionedSessionStore } from '../types/snapshot';
import { NO_INTERRUPTS } from './turn-loop';
import { ZERO_USAGE } from '../setup/usage';

/**
 * The reference agent loop: AgentStreamStage around the whole run; inside it,
 * turns of InvokeModelStage, then ExecuteToolStage for each tool use, each
 * turn followed by the TurnStage decision, until the model stops for another
 * reason than `'toolUse'` or a decision ends the run.
 *
 * Contexts are frozen and share the history's frozen messages, so handing one
 * to a handler costs nothing per message; `model` and `invocationState` are
 * shared by reference, and every context carries the same frozen agent view.
 * A run commits the conversation (history, model state, pending interrupts)
 * as a whole: each AgentStreamStage terminal call works on its own copy, and
 * the copy of the last one that completed is committed when the run
 * succeeds; a run that a Wrap handler ends early keeps its input and
 * completed turns; a run that fails or is cancelled changes none of them,
 * except that a resume that fails ends its halt and closes the halted turn. A
 * session, when given, keeps the state across processes.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, tools: [weather], systemPrompt: 'Be brief.', registry });
 * const result = await agent.invoke('What is the weather in Oslo?');
 * console.log(result.stopReason, result.message);
 * ```
 */
export class Agent {
  /** The registry whose handlers run around every stage of the agent. */
  readonly registry: MiddlewareRegistry;
  private readonly state: AgentState;

  /**
   * Creates an agent. Everything given is read and copied once, so the
   * agent's freezing never reaches the caller's objects.
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` for a missing model, a malformed tool, two tools with one
   *   name, a system prompt, registry, model state, message list or tool choice of the wrong shape, a
   *   `maxTurns` that is neither a positive integer nor `Infinity`, or a value that cannot be copied (a cycle,
   *   a getter that throws), naming the part.
   */
  constructor(options: AgentOptions) {
    const setup = readAgentOptions(options);
    this.registry = setup.registry ?? new MiddlewareRegistry();
    const { restored, session } = setup;
    this.state = {
      registry: this.registry,
      model: setup.model,
      tools: setup.tools,
      toolSpecs: setup.toolSpecs,
      systemPrompt: setup.systemPrompt,
      toolChoice: setup.toolChoice,
      view: Object.freeze({
        name: setup.name,
        sessionId: session?.id,
        tools: setup.toolSpecs,
        ...(setup.parent === undefined ? {} : { parent: setup.parent }),
      }),
      inheritTools: setup.inheritTools,
      maxTurns: setup.maxTurns,
      toolListCache: undefined,
      session,
      sessionRevision: undefined,
      history: restored?.history ?? new History(setup.messages),
      modelState: restored?.modelState ?? setup.modelState,
      halt: restored?.halt,
      usage: restored?.usage ?? ZERO_USAGE,
      running: undefined,
    };
    // A contributed tool that takes one of the agent's names is found now, not on the first run.
    openRunScope(this.state, []);
  }

  /**
   * Creates an agent that goes on from the snapshot its session's store holds
   * (a new agent when it holds none) and saves to it. From a store that keeps
   * revisions (`loadRecord`), the agent keeps the revision it read and every
   * save it makes expects it, so another worker's save in between fails the
   * next save with `ERR_SESSION_CONFLICT` (MW-254).
   *
   * @throws MiddlewareError As `new Agent()`; `ERR_SNAPSHOT_VERSION` when the stored snapshot is of a newer format.
   *   The store's own errors pass through unchanged.
   * @example
   * ```ts
   * const agent = await Agent.fromSession({ model, tools, registry, session: { store, id: 'chat-1' } });
   * await agent.resume({ 'agentStream:approve': 'yes' });
   * ```
   */
  static async fromSession(options: AgentOptions & { readonly session: AgentSession }): Promise<Agent> {
    const session = readSession((options as { readonly session?: AgentSession } | null | undefined)?.session);
    const { store } = session;
    if (typeof (store as Partial<RevisionedSessionStore>).loadRecord === 'function') {
      const record = await (store as RevisionedSessionStore).loadRecord(session.id);
      const agent = new Agent({ ...options, session, ...(record === undefined ? {} : { snapshot: record.snapshot }) });
      agent.state.sessionRevision = record === undefined ? null : record.revision;
      return agent;
    }
    const snapshot = await store.load(session.id);
    return new Agent({ ...options, session, ...(snapshot === undefined ? {} : { snapshot }) });
  }

  /**
   * The agent's state as plain JSON (frozen): the history, the model state,
   * the token counts and the halted run, if any; during a run, as it was when
   * the run started. `new Agent({ ..., snapshot })` goes on from it, in this
   * process or another.
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` when the history, model state or interrupt responses hold a value
   *   JSON cannot carry, naming it.
   */
  snapshot(): AgentSnapshot {
    const { history, modelState, halt, usage } = this.state;
    return toSnapshot({ history, modelState, halt, usage }, 'agent.snapshot()');
  }

  /**
   * The conversation: a frozen array of frozen messages. During a run, the
   * history as it was when the run started; a run's messages appear when it
   * succeeds, just before its agent result is delivered.
   */
  get messages(): readonly Message[] {
    return this.state.history.messages;
  }

  /** The model state (frozen). The model's changes reach it only when its chain and then the whole run succeed. */
  get modelState(): Record<string, unknown> {
    return this.state.modelState;
  }

  /**
   * Replaces the model state (copied and frozen). An assignment made during a run does not survive the run.
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` when the value is not an object or cannot be copied.
   */
  set modelState(value: Record<string, unknown>) {
    this.state.modelState = frozenRecordCopy(value, 'agent.modelState');
  }

  /** Token counts summed over the agent results of the runs that committed (frozen). */
  get usage(): Usage {
    return this.state.usage;
  }

  /** The interrupts a halted run is waiting on (frozen; empty when none); during a run, those of its start. */
  get pendingInterrupts(): readonly Interrupt[] {
    return this.state.halt?.interrupts ?? NO_INTERRUPTS;
  }

  /**
   * Cancels the running run, if any: it ends with stop reason `'cancelled'`,
   * every open layer is closed, and the history and model state are put back.
   * The run settles even when a tool or the model ignores its signal, or its
   * session store never answers: the agent stops waiting on them at once.
   *
   * @returns Whether a run was cancelled.
   */
  cancel(reason?: unknown): boolean {
    const { running } = this.state;
    if (running === undefined || running.signal.aborted) return false;
    running.abort(reason ?? new Error('The agent run was cancelled.'));
    return true;
  }

  /**
   * Runs the agent to its end and returns how it ended.
   *
   * @throws See {@link Agent.stream}.
   */
  async invoke(input: AgentInput, options: AgentRunOptions = {}): Promise<AgentResultEvent> {
    return (await lastEvent(this.stream(input, options))) as AgentResultEvent;
  }

  /**
   * Resumes a run halted on interrupts, answering them by id.
   *
   * @throws See {@link Agent.stream}.
   */
  async resume(
    responses: Readonly<Record<string, unknown>>,
    options: Omit<AgentRunOptions, 'interruptResponses'> = {},
  ): Promise<AgentResultEvent> {
    return (await lastEvent(runAgent(this.state, undefined, options, { responses }))) as AgentResultEvent;
  }

  /**
   * Runs the agent, yielding every event of the run: model stream events,
   * model results, tool results, interrupt events (the moment a question is
   * raised) and, last, the agent result.
   *
   * @throws MiddlewareError `ERR_AGENT_BUSY` when another run of this agent is going,
   *   `ERR_INTERRUPT_PENDING` for new input while interrupts are pending (or responses
   *   that fit none), `ERR_INVALID_OPTIONS` for malformed input or options, or input that cannot be
   *   read or copied (a cycle, a getter that throws; the message names the part). A run refused
   *   when it starts changes nothing and leaves the agent free for the next run. Errors of models,
   *   tools and handlers pass through unchanged (the history, model state and pending interrupts stay as
   *   they were, except that a failed resume ends its halt, its turn closed with error results for the
   *   calls without one); `ERR_INVALID_HANDLER` when the model's `stream()` or a tool's `run` cannot be called.
   */
  stream(input: AgentInput, options: AgentRunOptions = {}): AsyncGenerator<AgentEvent, void, undefined> {
    return runAgent(this.state, input, options, undefined);
  }
}
