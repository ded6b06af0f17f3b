/**
 * One run of the reference agent, from the moment it starts to the moment it
 * commits its conversation state (or puts it back): the AgentStreamStage
 * invoke around the turn loop, cancellation, halts on questions about the
 * whole run, and the commit.
 */
import { OwnedAbortController } from '../../core/internal';
import { MiddlewareError, type StateBinding, type TerminalCall } from '../../core/index';
import type { AgentState } from '../setup/agent-state';
import { readRunOptions, type AgentInput, type AgentRunOptions } from '../setup/agent-options';
import { readInput } from '../setup/agent-setup';
import { saveBack, saveRacing } from '../session/session-saves';
import { agentBusy } from '../errors';
import { startOrResume, type RunStart, type SuspendedRun } from '../session/suspended-run';
import { History } from '../session/history';
import type { ToolResultBlock } from '../types/message';
import { interruptFor, InterruptSignal, type ResponseStore } from '../session/interrupts';
import { NO_MIDDLEWARE_USAGE } from '../model/middleware-call';
import { linkCallerSignal } from '../setup/run-signal';
import { Delegation, PassThroughGenerator, type DelegatingGenerator } from '../../core/internal';
import { openRunScope } from '../setup/run-scope';
import type { Conversation, RunState, RunTally } from '../setup/run-state';
import type { AgentEvent, AgentStreamContext } from '../types/stages';
import { AgentStreamStage, isAgentResult } from '../stages';
import { interruptEvent } from './tool-dispatch';
import type { Interrupt } from '../types/tool';
import { toSnapshot } from '../session/snapshot';
import { agentResult, NO_INTERRUPTS, turnLoop, type LoopRun } from './turn-loop';
import { ZERO_USAGE } from '../setup/usage';

/**
 * One run; `resume` holds the responses of `agent.resume()`, which replace `options.interruptResponses`.
 *
 * @throws MiddlewareError `ERR_AGENT_BUSY`, `ERR_INTERRUPT_PENDING` or `ERR_INVALID_OPTIONS` when it starts (see `Agent.stream`).
 */
export function runAgent(
  agent: AgentState,
  input: AgentInput,
  options: AgentRunOptions,
  resume: { readonly responses: unknown } | undefined,
): AsyncGenerator<AgentEvent, void, undefined> {
  return new PassThroughGenerator(run(agent, input, options, resume));
}

/** One run; the events of its AgentStreamStage invoke pass through its relay. */
async function* run(
  agent: AgentState,
  input: AgentInput,
  options: AgentRunOptions,
  resume: { readonly responses: unknown } | undefined,
): DelegatingGenerator<AgentEvent> {
  if (agent.running !== undefined) {
    throw agentBusy();
  }
  // Everything read from the caller is read here, before the agent counts as running, so a
  // value that fails to read or copy rejects this run and leaves the agent free for the next.
  const settings = readRunOptions(options, resume);
  const begin = startOrResume(agent.halt, readInput(input), settings.responses, settings.invocationState);
  // The run's bundles and tool list: a bundle or tool that cannot join refuses the run before it starts.
  const scope = openRunScope(agent, settings.use);
  // Flagged: every stage invoke of the run reads its flag on each event instead of the signal (`abort-flag.ts`).
  const controller = new OwnedAbortController();
  const unlink = linkCallerSignal(settings, controller);
  agent.running = controller;
  const start: Conversation = { history: agent.history, modelState: agent.modelState, halt: agent.halt, usage: agent.usage };
  const tally: RunTally = {
    usage: ZERO_USAGE,
    middlewareUsage: NO_MIDDLEWARE_USAGE,
    closed: undefined,
    completed: false,
    produced: false,
    ended: false,
    shown: [],
  };
  const store: ResponseStore = { responses: begin.responses, late: () => (tally.ended ? 'its run ended' : undefined) };
  const runStore: ResponseStore = {
    responses: begin.responses,
    late: () => (tally.ended ? 'its run ended' : tally.produced ? 'the run produced its result' : undefined),
  };
  // The interrupt signals this run's own interrupt() raised; made with the first, which most runs never raise.
  let raised: WeakSet<object> | undefined;
  const { session } = agent;
  // The conversation state last saved to the session during this run, if any.
  let saved: Conversation | undefined;
  // Set when a save of this run found that another writer saved the session first.
  let lost = false;
  const persist =
    session === undefined
      ? undefined
      : async (conversation: Conversation): Promise<void> => {
          saved = conversation;
          const snapshot = toSnapshot(conversation, `the session "${session.id}"`);
          const expected = agent.sessionRevision;
          let revision: unknown;
          try {
            revision = await session.store.save(session.id, snapshot, expected === undefined ? undefined : { expectedRevision: expected });
          } catch (error) {
            // The session belongs to the writer that came first: nothing of this run is in it to put back (MW-254).
            if (MiddlewareError.isInstance(error) && error.code === 'ERR_SESSION_CONFLICT') lost = true;
            throw error;
          }
          if (typeof revision === 'string') agent.sessionRevision = revision;
        };
  const loop: LoopRun = { agent, scope, start, begin, store, tally, persist };
  let committed = false;
  // Set when the run ends with an error of its own (not when it is refused at its start, nor cancelled).
  const ending = { failed: false };
  // Set when a commit is to be saved before the next event reaches the caller.
  let unsaved = false;
  /** Saves `start` again when the session got turns of a run that does not commit, without waiting for it. */
  const putBack = (): void => {
    if (committed || lost || saved === undefined || saved === start || session === undefined) return;
    saveBack((persist as NonNullable<typeof persist>)(start), session.id);
  };
  try {
    const context: AgentStreamContext = Object.freeze({
      messages: begin.messages,
      invocationState: begin.invocationState,
      interrupt: interruptFor(AgentStreamStage.name, undefined, runStore, (signal) => void (raised ??= new WeakSet()).add(signal)),
      agent: scope.view,
    });
    const terminal = (runContext: AgentStreamContext, run: TerminalCall<RunState>): AsyncGenerator<AgentEvent, void, undefined> =>
      turnLoop(loop, runContext, run);
    const conversation: StateBinding<RunState> = {
      get: () => ({ outcome: undefined }),
      set: (next) => {
        // Called by the core before the final event is delivered, and only when a terminal call completed.
        commit(agent, next.outcome as Conversation);
        committed = true;
        unsaved = persist !== undefined;
      },
    };
    /** Saves the commit before `event` reaches the caller; a cancel while the store has not answered cancels the run. */
    const saveBefore = async (event: AgentEvent): Promise<AgentEvent> => {
      if (persist !== undefined) await saveRacing(persist(conversationOf(agent)), controller.signal);
      return event;
    };
    try {
      // Passed on by the relay, without this generator on every event.
      yield new Delegation<AgentEvent>(
        scope.registry.invoke(AgentStreamStage, context, terminal, { signal: controller.signal, state: conversation }),
        (event) => {
          // A run a Wrap handler ended early keeps what its closed terminal call reached (MW-128), before the caller sees the result.
          if (tally.closed !== undefined && !tally.completed && !committed && isAgentResult(event)) {
            commit(agent, tally.closed);
            committed = true;
            unsaved = persist !== undefined;
          }
          if (!unsaved) return event;
          unsaved = false;
          return saveBefore(event);
        },
      );
    } catch (error) {
      committed = false;
      // Read anew at each use: the run may be cancelled while the halt is being saved.
      const cancelled = (): boolean => controller.signal.aborted;
      if (!cancelled() && !(InterruptSignal.isInstance(error) && raised?.has(error) === true)) {
        ending.failed = true;
        throw error;
      }
      if (!cancelled()) {
        // A question about the whole run: nothing of the run is kept but what its resume needs to replay it,
        // and every question the caller has been shown stays answerable (MW-290).
        const interrupts = (error as InterruptSignal).interrupts;
        const pending = stillUnanswered([...(start.halt?.interrupts ?? NO_INTERRUPTS), ...tally.shown, ...interrupts], begin.responses);
        const halted: Conversation = { ...start, halt: haltedRun(begin, pending) };
        commit(agent, halted);
        committed = true;
        try {
          if (persist !== undefined) await saveRacing(persist(halted), controller.signal);
        } catch (saveError) {
          // The halt is not kept when it cannot be saved: the run fails as a whole (or, cancelled meanwhile, ends so).
          committed = false;
          if (!cancelled()) {
            ending.failed = true;
            throw saveError;
          }
        }
        if (committed) {
          for (const interrupt of interrupts) yield interruptEvent(interrupt);
          yield agentResult('interrupt', undefined, pending, tally.usage, undefined, tally.middlewareUsage);
          return;
        }
      }
      commit(agent, start);
      // Before the result: a store that answers at once is back where the agent is when the caller learns of the cancel.
      putBack();
      yield agentResult('cancelled', undefined, NO_INTERRUPTS, tally.usage, undefined, tally.middlewareUsage);
    }
  } finally {
    tally.ended = true;
    // A run that committed nothing (it failed, was cancelled or closed, or no terminal call completed)
    // leaves the conversation as it started, dropping whatever was assigned to agent.modelState meanwhile.
    if (!committed && ending.failed && start.halt !== undefined) {
      // A resume that failed answered its questions all the same: the halt is over, and its turn closed (MW-291).
      const abandoned = abandonHalt(start, start.halt);
      commit(agent, abandoned);
      committed = true;
      if (persist !== undefined) saveBack(persist(abandoned), (session as NonNullable<typeof session>).id);
    }
    if (!committed) commit(agent, start);
    agent.running = undefined;
    unlink();
    // The session got turns of a run that did not commit: it goes back to the state the agent is in.
    putBack();
  }
}

/** The agent's conversation state as it is now. */
function conversationOf(agent: AgentState): Conversation {
  return { history: agent.history, modelState: agent.modelState, halt: agent.halt, usage: agent.usage };
}

/** The halt of a run stopped by a question about the whole run: the run as it started, to be replayed. */
function haltedRun(begin: RunStart, interrupts: readonly Interrupt[]): Conversation['halt'] {
  return Object.freeze({
    interrupts,
    responses: begin.responses,
    input: begin.messages,
    turn: begin.turn,
    invocationState: begin.invocationState,
  });
}

/** The interrupts without a response, each id once, in order. */
function stillUnanswered(interrupts: readonly Interrupt[], responses: ReadonlyMap<string, unknown>): readonly Interrupt[] {
  const seen = new Set<string>();
  return Object.freeze(
    interrupts.filter((interrupt) => {
      if (responses.has(interrupt.id) || seen.has(interrupt.id)) return false;
      seen.add(interrupt.id);
      return true;
    }),
  );
}

/**
 * The conversation after a resume of `halt` failed: no halt, and the halted turn, if any, closed with the
 * results it had and, for each tool use without one, an error result saying so (the call may have run in the failed run).
 */
function abandonHalt(start: Conversation, halt: SuspendedRun): Conversation {
  const { turn } = halt;
  if (turn === undefined) return { ...start, halt: undefined };
  const history = new History(start.history.messages);
  const results = turn.toolUses.map(
    (toolUse): ToolResultBlock =>
      turn.results.get(toolUse.toolUseId) ?? {
        type: 'toolResult',
        toolUseId: toolUse.toolUseId,
        name: toolUse.name,
        status: 'error',
        content: [{ type: 'text', text: `No result for tool "${toolUse.name}": the run that resumed this call failed.` }],
      },
  );
  history.append({ role: 'user', content: results });
  return { ...start, history, halt: undefined };
}

/** Makes `conversation` the agent's conversation state. */
function commit(agent: AgentState, conversation: Conversation): void {
  agent.history = conversation.history;
  agent.modelState = conversation.modelState;
  agent.halt = conversation.halt;
  agent.usage = conversation.usage;
}
