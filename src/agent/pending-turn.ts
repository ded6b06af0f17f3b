import type { Message, ToolResultBlock, ToolUseBlock } from './message-types';
import { interruptPending } from './errors';
import type { Interrupt } from './tool-types';

/** A turn halted on interrupts, kept until a resume finishes it. */
export interface PendingTurn {
  /** The assistant message whose tool uses the turn runs. */
  readonly message: Message;
  /** Its tool uses, in order. */
  readonly toolUses: readonly ToolUseBlock[];
  /** The results already known, by tool-use id (kept across a resume). */
  readonly results: Map<string, ToolResultBlock>;
  /** Interrupt responses given so far, by interrupt id. */
  readonly stored: Map<string, unknown>;
  /** The interrupts the turn halted on (frozen; empty while it runs). */
  readonly interrupts: readonly Interrupt[];
}

/**
 * Checks a run's input against the pending turn; returns the turn to finish
 * when the run is a resume, undefined for a fresh run.
 *
 * @throws MiddlewareError `ERR_INTERRUPT_PENDING` for new input while interrupts
 *   are pending, for responses when none is pending, and for a response to an unknown id.
 */
export function prepareResume(
  pending: PendingTurn | undefined,
  messages: readonly Message[],
  responses: ReadonlyMap<string, unknown> | undefined,
): PendingTurn | undefined {
  if (pending === undefined) {
    if (responses !== undefined) throw interruptPending('interrupt responses were given, but no interrupt is pending; start a new run with input instead');
    return undefined;
  }
  const ids = pending.interrupts.map((interrupt) => interrupt.id);
  if (messages.length > 0 || responses === undefined) {
    throw interruptPending(`the last run halted on interrupts ${ids.map((id) => `"${id}"`).join(', ')}; resume it with agent.resume({ [id]: response }) (no new input) before starting another`);
  }
  const stored = new Map(pending.stored);
  for (const [id, response] of responses) {
    if (!ids.includes(id)) throw interruptPending(`"${id}" is not a pending interrupt; the pending ones are ${ids.map((known) => `"${known}"`).join(', ')}`);
    stored.set(id, response);
  }
  // Copies, so a resume that fails leaves the halted turn as it was.
  return { ...pending, results: new Map(pending.results), stored };
}
