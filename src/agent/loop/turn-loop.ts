/**
 * The terminal of AgentStreamStage in the reference agent: the loop of turns
 * (a model call and the tool calls it asked for), each followed by the
 * TurnStage decision. Each terminal call works on its own {@link Attempt},
 * started from the run's start, and hands it to the core as its state just
 * before it ends; a call closed before that leaves its last checkpoint (MW-128).
 */
import { castDraft, type Draft } from 'immer';
import type { SystemContentBlock } from '../../core/index';
import type { TerminalCall } from '../../core/index';
import type { AgentState } from '../setup/agent-state';
import { compressIfOver } from './context-budget';
import { History } from '../session/history';
import type { Message, ToolResultBlock } from '../types/message';
import { nextMacrotask } from './macrotask';
import { ModelCall } from './model-call';
import type { StopReason, Usage } from '../types/model';
import type { RunStart } from '../session/suspended-run';
import type { ResponseStore } from '../session/interrupts';
import { addMiddlewareUsage, middlewareCaller, NO_MIDDLEWARE_USAGE } from '../model/middleware-call';
import type { Attempt, Conversation, RunState, RunTally } from '../setup/run-state';
import { Delegation, PassThroughGenerator, type DelegatingGenerator } from '../../core/internal';
import type { RunScope } from '../setup/run-scope';
import { saveRacing } from '../session/session-saves';
import type { AgentEvent, AgentResultEvent, AgentStreamContext, MiddlewareUsage, StoppedBy, TurnInfo } from '../types/stages';
import { dispatchTools, type WorkingTurn } from './tool-dispatch';
import type { Interrupt } from '../types/tool';
import { ownTurnContext, settleTurn } from './turn-decision';
import { addUsage, ZERO_USAGE } from '../setup/usage';

/** What every terminal call of one run shares. */
export interface LoopRun {
  /** The agent. */
  readonly agent: AgentState;
  /** The run's registry, tools, view and budgets. */
  readonly scope: RunScope;
  /** The conversation state as it was when the run started. */
  readonly start: Conversation;
  /** How the run starts: the turn it resumes, if any, and its responses. */
  readonly begin: RunStart;
  /** Where the run's tool calls find interrupt responses. */
  readonly store: ResponseStore;
  /** Saves a conversation state to the agent's session, when it has one. */
  readonly persist: ((conversation: Conversation) => Promise<void>) | undefined;
  /** What the run accumulates over all its terminal calls. */
  readonly tally: RunTally;
}

/** The loop of turns, as the AgentStreamStage terminal. */
export function turnLoop(
  loop: LoopRun,
  context: AgentStreamContext,
  run: TerminalCall<RunState>,
): AsyncGenerator<AgentEvent, void, undefined> {
  return new PassThroughGenerator(turns(loop, context, run));
}

/** The loop of turns; the events of each model call pass through its relay. */
async function* turns(loop: LoopRun, context: AgentStreamContext, run: TerminalCall<RunState>): DelegatingGenerator<AgentEvent> {
  const { agent, scope, start, begin, store, tally, persist } = loop;
  const { invocationState } = context;
  const { signal } = run;
  const attempt: Attempt = {
    history: new History(start.history.messages),
    modelState: start.modelState,
    halt: start.halt,
    usage: ZERO_USAGE,
    middlewareUsage: NO_MIDDLEWARE_USAGE,
  };
  /** Counts the model calls middleware and delegating tools made for this terminal call, and for the run. */
  const report = (who: string, usage: Usage): void => {
    attempt.middlewareUsage = addMiddlewareUsage(attempt.middlewareUsage, who, usage);
    tally.middlewareUsage = addMiddlewareUsage(tally.middlewareUsage, who, usage);
  };
  const invokeModel = middlewareCaller({ scope, model: agent.model, invocationState, signal, report });
  const compression = {
    registry: scope.registry,
    budgets: scope.budgets,
    history: attempt.history,
    systemPrompt: agent.systemPrompt ?? NO_BLOCKS,
    toolSpecs: scope.toolSpecs,
    model: agent.model,
    invokeModel,
    invocationState,
    agent: scope.view,
    signal,
  };
  let outcome: 'running' | 'completed' | 'failed' = 'running';
  const conversationOf = (): Conversation =>
    Object.freeze({
      history: new History(attempt.history.messages),
      modelState: attempt.modelState,
      halt: attempt.halt,
      usage: addUsage(start.usage, attempt.usage),
    });
  let checkpoint = conversationOf();
  /** Hands the attempt to the core as the terminal call's state, and returns the result to yield last. */
  const finish = (result: AgentResultEvent): AgentResultEvent => {
    tally.produced = true;
    checkpoint = conversationOf();
    (run.state as Draft<RunState>).outcome = castDraft(checkpoint);
    return result;
  };
  /** Acts on the TurnStage decision for a completed turn; returns the agent result when it ends the call. */
  const settle = async (turn: TurnInfo): Promise<AgentResultEvent | undefined> => {
    const turnContext = ownTurnContext({
      messages: attempt.history.messages,
      turn,
      usage: attempt.usage,
      invocationState,
      agent: scope.view,
      invokeModel,
    });
    const decided = await settleTurn(scope.registry, attempt.history, turnContext, { signal });
    const message = decided.response ?? turn.message;
    checkpoint = conversationOf();
    // Saved after every completed turn, so a crash loses at most the turn in progress.
    if (persist !== undefined) await saveRacing(persist(checkpoint), signal);
    const { ends } = decided;
    // A decision to go on past the turn limit ends the call instead (MW-143).
    const limited = !ends && turn.index >= agent.maxTurns;
    if (!ends && !limited) return undefined;
    attempt.history.append(...decided.onRunEnd);
    if (limited)
      return finish(agentResult('maxTurns', message, NO_INTERRUPTS, attempt.usage, turnLimit(agent.maxTurns), attempt.middlewareUsage));
    if (decided.stoppedBy !== undefined)
      return finish(agentResult('stopped', message, NO_INTERRUPTS, attempt.usage, decided.stoppedBy, attempt.middlewareUsage));
    return finish(agentResult(turn.stopReason, message, NO_INTERRUPTS, attempt.usage, undefined, attempt.middlewareUsage));
  };
  try {
    // Its own copy of the resumed turn: the results an earlier call of this run found are not this call's.
    let turn: WorkingTurn | undefined =
      begin.turn === undefined
        ? undefined
        : { ...begin.turn, results: new Map(begin.turn.results), terminating: new Set(begin.turn.terminating) };
    if (turn === undefined) {
      attempt.history.append(...context.messages);
      // A replayed run is under way again: the halt it resumes no longer holds.
      attempt.halt = undefined;
    }
    checkpoint = conversationOf();
    for (let index = 1; ; index++) {
      // Once per turn, whatever the model does: a model answering from memory settles every wait of a turn with
      // promise jobs alone, which would keep every timer (a timeout, a timed cancel) from running (MW-142).
      await nextMacrotask();
      if (turn === undefined) {
        // Without budgets there is nothing to check: no generator of its own to start and pull.
        if (compression.budgets.length > 0) yield* compressIfOver(compression);
        // Whatever a handler assigns to agent.modelState during the call is dropped with it.
        const assigned = agent.modelState;
        const call = new ModelCall(
          scope.registry,
          {
            model: agent.model,
            messages: attempt.history.messages,
            systemPrompt: agent.systemPrompt,
            toolSpecs: scope.toolSpecs,
            toolChoice: agent.toolChoice,
            invocationState,
            agent: scope.view,
            modelState: attempt.modelState,
            invokeModel,
          },
          { signal },
        );
        try {
          // Passed on by the relay, without a generator of its own or this one on every model event.
          yield new Delegation<AgentEvent>(call.events, call.observe as (event: AgentEvent) => AgentEvent);
        } finally {
          attempt.modelState = call.modelState;
          agent.modelState = assigned;
        }
        const result = call.result();
        const { message, toolUses } = result;
        attempt.history.append(message);
        attempt.usage = addUsage(attempt.usage, result.usage);
        tally.usage = addUsage(tally.usage, result.usage);
        if (toolUses.length === 0) {
          const ended = await settle({ index, message, toolResults: NO_RESULTS, stopReason: result.stopReason });
          if (ended === undefined) continue;
          yield ended;
          outcome = 'completed';
          return;
        }
        turn = { message, toolUses, results: new Map(), terminating: new Set() };
      }
      const interrupts = yield* dispatchTools(
        {
          registry: scope.registry,
          tools: scope.tools,
          store,
          invocationState,
          signal,
          agent: scope.view,
          report,
          shown: tally.shown,
          invokeModel,
        },
        turn,
      );
      if (interrupts.length > 0) {
        const pending = {
          message: turn.message,
          toolUses: turn.toolUses,
          results: new Map(turn.results),
          terminating: new Set(turn.terminating),
        };
        attempt.halt = Object.freeze({ interrupts, responses: begin.responses, input: NO_MESSAGES, turn: pending, invocationState });
        yield finish(agentResult('interrupt', turn.message, interrupts, attempt.usage, undefined, attempt.middlewareUsage));
        outcome = 'completed';
        return;
      }
      attempt.halt = undefined;
      const { toolUses, results } = turn;
      const toolResults = Object.freeze(toolUses.map((toolUse) => results.get(toolUse.toolUseId) as ToolResultBlock));
      // Frozen as it is made, so the history takes it without a copy.
      attempt.history.append(Object.freeze({ role: 'user', content: toolResults }));
      const ending = toolUses.find((toolUse) => turn?.terminating.has(toolUse.toolUseId) === true);
      const terminate = ending === undefined ? undefined : Object.freeze({ tool: ending.name, toolUseId: ending.toolUseId });
      const ended = await settle({
        index,
        message: turn.message,
        toolResults,
        stopReason: 'toolUse',
        ...(terminate === undefined ? {} : { terminate }),
      });
      turn = undefined;
      if (ended === undefined) continue;
      yield ended;
      outcome = 'completed';
      return;
    }
  } catch (error) {
    outcome = 'failed';
    throw error;
  } finally {
    // Closed before it completed (a Wrap handler stopped pulling it): what it reached stays available to the run.
    if (outcome === 'running') tally.closed = checkpoint;
    else if (outcome === 'completed') tally.completed = true;
  }
}

/** Who stopped a run that reached its turn limit (frozen). */
function turnLimit(maxTurns: number): StoppedBy {
  return Object.freeze({ handler: 'maxTurns', reason: `reached the limit of ${maxTurns} turns` });
}

/** No interrupts (frozen, shared). */
export const NO_INTERRUPTS: readonly Interrupt[] = Object.freeze([]);
const NO_RESULTS: readonly ToolResultBlock[] = Object.freeze([]);
const NO_MESSAGES: readonly Message[] = Object.freeze([]);
const NO_BLOCKS: readonly SystemContentBlock[] = Object.freeze([]);

/**
 * The result event of AgentStreamStage (frozen, as its interrupts, message, usage and `stoppedBy` are);
 * `middlewareUsage` is left out when it counts nothing.
 */
export function agentResult(
  stopReason: StopReason,
  message: Message | undefined,
  interrupts: readonly Interrupt[],
  usage: Usage,
  stoppedBy?: StoppedBy,
  middlewareUsage: MiddlewareUsage = NO_MIDDLEWARE_USAGE,
): AgentResultEvent {
  const result: { -readonly [K in keyof AgentResultEvent]: AgentResultEvent[K] } = {
    type: 'agentResult',
    stopReason,
    message,
    interrupts,
    usage,
  };
  if (stoppedBy !== undefined) result.stoppedBy = stoppedBy;
  if (Object.keys(middlewareUsage).length > 0) result.middlewareUsage = middlewareUsage;
  return Object.freeze(result);
}
