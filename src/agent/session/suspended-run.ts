/**
 * A halted run and how the next run picks it up: the interrupts it waits on,
 * the responses known so far, what a resume replays, and the checks that
 * keep a run's input and responses in line with it (MW-113, MW-114, MW-131, MW-134).
 */
import type { Message, ToolResultBlock, ToolUseBlock } from '../types/message';
import { interruptPending } from '../errors';
import { AgentStreamStage, ExecuteToolStage } from '../stages';
import { ALL_DECISIONS, readApprovalDecision, TOOL_APPROVAL } from '../tools/approval';
import { isObject } from '../../util/is-object';
import type { Interrupt } from '../types/tool';

/** A turn halted on interrupts, kept until a resume finishes it. */
export interface PendingTurn {
  /** The assistant message whose tool uses the turn runs. */
  readonly message: Message;
  /** Its tool uses, in order. */
  readonly toolUses: readonly ToolUseBlock[];
  /** The results already known, by tool-use id (kept across a resume). */
  readonly results: ReadonlyMap<string, ToolResultBlock>;
  /** The ids of the tool uses among them whose result asked to end the run (MW-171). */
  readonly terminating: ReadonlySet<string>;
}

/** A run halted on interrupts: what it waits on, and what the resume replays. */
export interface SuspendedRun {
  /** The interrupts it waits on (frozen). */
  readonly interrupts: readonly Interrupt[];
  /** The responses given so far (to this halt and the ones before it, since the last run that did not halt). */
  readonly responses: ReadonlyMap<string, unknown>;
  /** The input messages the resume replays (those of a run halted before it got anywhere; empty for a halted turn). */
  readonly input: readonly Message[];
  /** The turn the resume finishes first, if the run halted in its tool calls. */
  readonly turn: PendingTurn | undefined;
  /** The invocation state of the halted run, which a resume goes on with unless it is given its own. */
  readonly invocationState: Record<string, unknown>;
}

/** How a run starts: as a fresh run, or as the resume of a halted one. */
export interface RunStart {
  /** The AgentStreamStage context's messages: the input, or what the resume replays. */
  readonly messages: readonly Message[];
  /** The turn to finish first, when the run resumes a halted turn. */
  readonly turn: PendingTurn | undefined;
  /** The run's responses: given in advance for `agentStream` ids, and those of the halt it resumes. */
  readonly responses: ReadonlyMap<string, unknown>;
  /** The run's invocation state. */
  readonly invocationState: Record<string, unknown>;
}

/** Refuses, before the run starts, an answer to an approval question that the tool call would refuse (MW-289). */
function checkApprovalAnswer(interrupt: Interrupt | undefined, response: unknown): void {
  if (interrupt?.name !== TOOL_APPROVAL || !interrupt.id.startsWith(`${ExecuteToolStage.name}:`)) return;
  const decisions = isObject(interrupt.reason) ? (interrupt.reason as { decisions?: unknown }).decisions : undefined;
  readApprovalDecision(
    response,
    Array.isArray(decisions) ? decisions : ALL_DECISIONS,
    `the response to "${interrupt.id}"`,
    AgentStreamStage.name,
  );
}

/** Responses given in advance may name questions about the whole run, whose ids do not depend on the run. */
const RUN_PREFIX = `${AgentStreamStage.name}:`;

/**
 * Checks a run's input and responses against the halted run, if any, and
 * says how the run starts.
 *
 * @param invocationState - The run's own, when given.
 * @throws MiddlewareError `ERR_INTERRUPT_PENDING` for new input while interrupts are pending, no responses to a halted
 *   run, or a response whose id is neither pending nor an `agentStream:` one; `ERR_INVALID_OPTIONS` for an answer
 *   to a pending approval question that is no decision it allows.
 */
export function startOrResume(
  halt: SuspendedRun | undefined,
  messages: readonly Message[],
  given: ReadonlyMap<string, unknown> | undefined,
  invocationState: Record<string, unknown> | undefined,
): RunStart {
  if (halt === undefined) {
    for (const id of given?.keys() ?? []) {
      if (!id.startsWith(RUN_PREFIX))
        throw interruptPending(
          `"${id}" is not a pending interrupt, and no interrupt is pending; only responses to questions about the whole run ("${RUN_PREFIX}<name>") may be given in advance`,
        );
    }
    return { messages, turn: undefined, responses: new Map(given), invocationState: invocationState ?? {} };
  }
  const ids = halt.interrupts.map((interrupt) => interrupt.id);
  const pending = ids.map((id) => `"${id}"`).join(', ');
  if (messages.length > 0 || given === undefined) {
    throw interruptPending(
      `the last run halted on interrupts ${pending}; resume it with agent.resume({ [id]: response }) (no new input) before starting another`,
    );
  }
  const responses = new Map(halt.responses);
  for (const [id, response] of given) {
    if (!ids.includes(id) && !id.startsWith(RUN_PREFIX))
      throw interruptPending(`"${id}" is not a pending interrupt; the pending ones are ${pending}`);
    checkApprovalAnswer(
      halt.interrupts.find((interrupt) => interrupt.id === id),
      response,
    );
    responses.set(id, response);
  }
  return { messages: halt.input, turn: halt.turn, responses, invocationState: invocationState ?? halt.invocationState };
}
