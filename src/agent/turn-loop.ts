/**
 * The terminal of AgentStreamStage in the reference agent: the loop of model
 * calls and tool calls. Each terminal call works on its own {@link Attempt},
 * started from the run's start, and hands it to the core as its state just
 * before it ends.
 */
import { castDraft, type Draft } from 'immer';
import type { TerminalRun } from '../types';
import type { AgentCore } from './agent-core';
import { History } from './history';
import type { Message, ToolResultBlock, ToolUseBlock } from './message-types';
import { callModel } from './model-call';
import type { StopReason, Usage } from './model-types';
import type { PendingTurn } from './pending-turn';
import type { Attempt, Conversation, RunState, RunTally } from './run-state';
import type { AgentEvent, AgentResultEvent, AgentStreamContext } from './stage-types';
import { callTools } from './tool-dispatch';
import type { Interrupt } from './tool-types';
import { addUsage, ZERO_USAGE } from './usage';

/** What every terminal call of one run shares. */
export interface LoopRun {
  /** The agent. */
  readonly core: AgentCore;
  /** The conversation state as it was when the run started. */
  readonly start: Conversation;
  /** The halted turn the run resumes, if it is a resume. */
  readonly resume: PendingTurn | undefined;
  /** What the run accumulates over all its terminal calls. */
  readonly tally: RunTally;
}

/** The loop of model calls and tool calls, as the AgentStreamStage terminal. */
export async function* turnLoop(loop: LoopRun, context: AgentStreamContext, run: TerminalRun<RunState>): AsyncGenerator<AgentEvent, void, undefined> {
  const { core, start, resume, tally } = loop;
  const { invocationState } = context;
  const { signal } = run;
  const attempt: Attempt = { history: new History(start.history.messages), modelState: start.modelState, pending: start.pending, usage: ZERO_USAGE };
  const finish = (result: AgentResultEvent): AgentResultEvent => {
    const outcome: Conversation = Object.freeze({ history: attempt.history, modelState: attempt.modelState, pending: attempt.pending });
    (run.state as Draft<RunState>).outcome = castDraft(outcome);
    return result;
  };
  let lastMessage: Message | undefined;
  // Its own copy of the resumed turn: the results an earlier call of this run found are not this call's.
  let turn = resume === undefined ? undefined : { ...resume, results: new Map(resume.results) };
  if (turn === undefined) attempt.history.append(...context.messages);
  for (;;) {
    if (turn === undefined) {
      const result = yield* callModel(core, attempt, invocationState, signal);
      attempt.history.append(result.message);
      attempt.usage = addUsage(attempt.usage, result.usage);
      tally.usage = addUsage(tally.usage, result.usage);
      lastMessage = attempt.history.messages[attempt.history.messages.length - 1] as Message;
      const toolUses = lastMessage.content.filter((block): block is ToolUseBlock => block.type === 'toolUse');
      if (result.stopReason !== 'toolUse' || toolUses.length === 0) {
        attempt.pending = undefined;
        yield finish(agentResult(result.stopReason, lastMessage, NO_INTERRUPTS, attempt.usage));
        return;
      }
      turn = { message: lastMessage, toolUses, results: new Map(), stored: new Map(), interrupts: [] };
    }
    lastMessage = turn.message;
    const interrupts = yield* callTools(core, turn, invocationState, signal);
    if (interrupts.length > 0) {
      attempt.pending = { ...turn, interrupts };
      yield finish(agentResult('interrupt', lastMessage, interrupts, attempt.usage));
      return;
    }
    attempt.pending = undefined;
    const results = turn.toolUses.map((toolUse) => turn?.results.get(toolUse.toolUseId) as ToolResultBlock);
    attempt.history.append({ role: 'user', content: results });
    turn = undefined;
  }
}

/** No interrupts (frozen, shared). */
export const NO_INTERRUPTS: readonly Interrupt[] = Object.freeze([]);

/** The result event of AgentStreamStage (frozen, as its interrupts, message and usage are). */
export function agentResult(stopReason: StopReason, message: Message | undefined, interrupts: readonly Interrupt[], usage: Usage): AgentResultEvent {
  return Object.freeze({ type: 'agentResult', stopReason, message, interrupts, usage });
}
