/**
 * The terminal of AgentStreamStage in the reference agent: the loop of turns
 * (a model call and the tool calls it asked for), each followed by the
 * TurnStage decision. Each terminal call works on its own {@link Attempt},
 * started from the run's start, and hands it to the core as its state just
 * before it ends; a call closed before that leaves its last checkpoint (MW-128).
 */
import { castDraft, type Draft } from 'immer';
import type { TerminalRun } from '../stage/types';
import { AbortRace } from './abort-race';
import type { AgentCore } from './agent-core';
import { History } from './history';
import type { Message, ToolResultBlock, ToolUseBlock } from './message-types';
import { callModel } from './model-call';
import type { StopReason, Usage } from './model-types';
import type { RunStart } from './halt';
import type { ResponseStore } from './interrupts';
import type { Attempt, Conversation, RunState, RunTally } from './run-state';
import type { AgentEvent, AgentResultEvent, AgentStreamContext } from './stage-types';
import { callTools, type WorkingTurn } from './tool-dispatch';
import type { Interrupt } from './tool-types';
import { decideTurn } from './turn-decision';
import type { StoppedBy, TurnInfo } from './turn-types';
import { addUsage, ZERO_USAGE } from './usage';

/** What every terminal call of one run shares. */
export interface LoopRun {
  /** The agent. */
  readonly core: AgentCore;
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
export async function* turnLoop(loop: LoopRun, context: AgentStreamContext, run: TerminalRun<RunState>): AsyncGenerator<AgentEvent, void, undefined> {
  const { core, start, begin, store, tally, persist } = loop;
  const { invocationState } = context;
  const { signal } = run;
  const attempt: Attempt = { history: new History(start.history.messages), modelState: start.modelState, halt: start.halt, usage: ZERO_USAGE };
  let outcome: 'running' | 'completed' | 'failed' = 'running';
  const conversationOf = (): Conversation =>
    Object.freeze({ history: new History(attempt.history.messages), modelState: attempt.modelState, halt: attempt.halt, usage: addUsage(start.usage, attempt.usage) });
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
    const decided = await decideTurn(core, attempt, turn, invocationState, signal);
    attempt.history.append(...decided.inject);
    checkpoint = conversationOf();
    // Saved after every completed turn, so a crash loses at most the turn in progress.
    if (persist !== undefined) await saveRacing(persist(checkpoint), signal);
    const ends = decided.decision === 'stop' || (decided.decision === 'natural' && turn.toolResults.length === 0);
    if (!ends) return undefined;
    attempt.history.append(...decided.onRunEnd);
    if (decided.stoppedBy !== undefined) return finish(agentResult('stopped', turn.message, NO_INTERRUPTS, attempt.usage, decided.stoppedBy));
    return finish(agentResult(turn.stopReason, turn.message, NO_INTERRUPTS, attempt.usage));
  };
  try {
    // Its own copy of the resumed turn: the results an earlier call of this run found are not this call's.
    let turn: WorkingTurn | undefined = begin.turn === undefined ? undefined : { ...begin.turn, results: new Map(begin.turn.results) };
    if (turn === undefined) {
      attempt.history.append(...context.messages);
      // A replayed run is under way again: the halt it resumes no longer holds.
      attempt.halt = undefined;
    }
    checkpoint = conversationOf();
    for (let index = 1; ; index++) {
      if (turn === undefined) {
        const result = yield* callModel(core, attempt, invocationState, signal);
        attempt.history.append(result.message);
        attempt.usage = addUsage(attempt.usage, result.usage);
        tally.usage = addUsage(tally.usage, result.usage);
        const message = attempt.history.messages[attempt.history.messages.length - 1] as Message;
        const toolUses = message.content.filter((block): block is ToolUseBlock => block.type === 'toolUse');
        if (result.stopReason !== 'toolUse' || toolUses.length === 0) {
          const ended = await settle({ index, message, toolResults: NO_RESULTS, stopReason: result.stopReason });
          if (ended === undefined) continue;
          yield ended;
          outcome = 'completed';
          return;
        }
        turn = { message, toolUses, results: new Map() };
      }
      const interrupts = yield* callTools(core, turn, store, invocationState, signal);
      if (interrupts.length > 0) {
        const pending = { message: turn.message, toolUses: turn.toolUses, results: new Map(turn.results) };
        attempt.halt = Object.freeze({ interrupts, responses: begin.responses, input: NO_MESSAGES, turn: pending, invocationState });
        yield finish(agentResult('interrupt', turn.message, interrupts, attempt.usage));
        outcome = 'completed';
        return;
      }
      attempt.halt = undefined;
      const { toolUses, results } = turn;
      const toolResults = Object.freeze(toolUses.map((toolUse) => results.get(toolUse.toolUseId) as ToolResultBlock));
      attempt.history.append({ role: 'user', content: toolResults });
      const ended = await settle({ index, message: turn.message, toolResults, stopReason: 'toolUse' });
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

/** Waits for a save, or throws the signal's reason as soon as it aborts (a store that hangs cannot hold a cancelled run). */
async function saveRacing(saving: Promise<void>, signal: AbortSignal): Promise<void> {
  const race = new AbortRace(signal);
  try {
    await race.wait(saving);
  } finally {
    race.dispose();
  }
}

/** No interrupts (frozen, shared). */
export const NO_INTERRUPTS: readonly Interrupt[] = Object.freeze([]);
const NO_RESULTS: readonly ToolResultBlock[] = Object.freeze([]);
const NO_MESSAGES: readonly Message[] = Object.freeze([]);

/** The result event of AgentStreamStage (frozen, as its interrupts, message, usage and `stoppedBy` are). */
export function agentResult(stopReason: StopReason, message: Message | undefined, interrupts: readonly Interrupt[], usage: Usage, stoppedBy?: StoppedBy): AgentResultEvent {
  return Object.freeze(stoppedBy === undefined ? { type: 'agentResult', stopReason, message, interrupts, usage } : { type: 'agentResult', stopReason, message, interrupts, usage, stoppedBy });
}
