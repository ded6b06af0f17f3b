/**
 * The agent's conversation state as plain JSON and back (MW-136): what a
 * session store keeps, so a run halted in one process resumes in another.
 */
import { describeValue } from '../../util/describe-value';
import { setOwnEntry } from '../../util/own-entry';
import { checkMessages, checkQuietly, isCheckedArray } from '../values/checked-messages';
import { checkRecordedResult } from '../values/block-check';
import { invalid, snapshotTooNew } from '../errors';
import { frozenCopy, frozenRecordCopy } from '../values/freeze';
import type { SuspendedRun, PendingTurn } from './suspended-run';
import { History } from './history';
import { toJsonValue } from '../values/json-value';
import type { Message, ToolResultBlock, ToolUseBlock } from '../types/message';
import type { Usage } from '../types/model';
import type { Conversation } from '../setup/run-state';
import type { AgentSnapshot, HaltedRunSnapshot, HaltedTurnSnapshot } from '../types/snapshot';
import type { Interrupt } from '../types/tool';
import { isRecord } from '../values/value-shapes';
import { isUsage } from '../setup/usage';

/** The format version this copy writes, and the only one it reads. */
export const SNAPSHOT_VERSION = 1;

/**
 * The JSON form of a conversation state (frozen). Values the snapshot needs
 * whole (messages, model state, responses) must have a JSON form; an
 * interrupt's `reason` without one is `null`, and the properties of the
 * halted run's invocation state without one are left out.
 *
 * @param path - What the state is called in errors (`agent.snapshot()`).
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` naming the part of the messages, model state or responses that is not JSON.
 */
export function toSnapshot(conversation: Conversation, path: string): AgentSnapshot {
  const { halt } = conversation;
  const source = conversation.history.messages;
  const messages = wholeJson(source, 'messages', path) as readonly Message[];
  // The JSON form of checked messages is checked as it is written, so going on from the snapshot need not (MW-144).
  if (isCheckedArray(source)) checkQuietly(messages);
  return Object.freeze({
    version: SNAPSHOT_VERSION,
    messages,
    modelState: wholeJson(conversation.modelState, 'modelState', path) as Record<string, unknown>,
    usage: conversation.usage,
    halted: halt === undefined ? null : haltedSnapshot(halt, path),
  });
}

function haltedSnapshot(halt: SuspendedRun, path: string): HaltedRunSnapshot {
  const interrupts = halt.interrupts.map((interrupt) => {
    const reason = toJsonValue(interrupt.reason);
    return Object.freeze({ id: interrupt.id, name: interrupt.name, reason: reason.ok ? reason.json : null });
  });
  const { turn } = halt;
  return Object.freeze({
    interrupts: Object.freeze(interrupts),
    responses: wholeJson(Object.fromEntries(halt.responses), 'responses', path) as Record<string, unknown>,
    input: wholeJson(halt.input, 'input', path) as readonly Message[],
    turn: turn === undefined ? null : turnSnapshot(turn, path),
    invocationState: jsonProperties(halt.invocationState),
  });
}

/** A halted turn as JSON; `terminating` only when a result of it asked to end the run (MW-171). */
function turnSnapshot(turn: PendingTurn, path: string): HaltedTurnSnapshot {
  const message = wholeJson(turn.message, 'turn.message', path) as Message;
  const results = wholeJson([...turn.results.values()], 'turn.results', path) as readonly ToolResultBlock[];
  const terminating = [...turn.terminating];
  return Object.freeze(terminating.length === 0 ? { message, results } : { message, results, terminating: Object.freeze(terminating) });
}

/** The JSON form of a value the snapshot needs whole; `root` names it in the problem's path. */
function wholeJson(value: unknown, root: string, path: string): unknown {
  const conversion = toJsonValue(value, root);
  if (conversion.ok) return conversion.json;
  throw invalid(`${path}: ${conversion.problem}, so the state cannot be saved as JSON; a snapshot holds plain data only`);
}

/** The properties of an object that have a JSON form, converted (frozen); a property JSON drops or cannot carry is left out. */
function jsonProperties(value: Record<string, unknown>): Readonly<Record<string, unknown>> {
  const kept: Record<string, unknown> = {};
  let keys: string[];
  try {
    keys = Object.keys(value);
  } catch {
    return Object.freeze(kept);
  }
  for (const key of keys) {
    let part: unknown;
    try {
      part = value[key];
    } catch {
      // Left out, as a property whose value is undefined is.
    }
    // A function or a symbol has no JSON form (the conversion says so); undefined would become null.
    if (part === undefined) continue;
    const conversion = toJsonValue(part);
    if (conversion.ok) setOwnEntry(kept, key, conversion.json);
  }
  return Object.freeze(kept);
}

/**
 * The conversation state a snapshot stands for, checked and copied.
 *
 * @param path - What the snapshot is called in errors (`options.snapshot`).
 * @throws MiddlewareError `ERR_SNAPSHOT_VERSION` for a later format version; `ERR_INVALID_OPTIONS` naming the part
 *   that does not fit the format (or cannot be copied).
 */
export function readSnapshot(value: unknown, path: string): Conversation {
  if (!isRecord(value))
    throw invalid(
      `${path} must be an agent snapshot { version, messages, modelState, usage, halted } (agent.snapshot() makes one), got ${describeValue(value)}`,
    );
  const snapshot = frozenCopy(value, path);
  const { version } = snapshot;
  if (Number.isInteger(version) && (version as number) > SNAPSHOT_VERSION) throw snapshotTooNew(path, version as number, SNAPSHOT_VERSION);
  if (version !== SNAPSHOT_VERSION) throw invalid(`${path}.version must be ${SNAPSHOT_VERSION}, got ${describeValue(version)}`);
  const halted = snapshot.halted;
  if (halted !== null && !isRecord(halted)) throw invalid(`${path}.halted must be null or a halted run, got ${describeValue(halted)}`);
  return {
    history: new History(messagesAt(snapshot.messages, `${path}.messages`)),
    modelState: frozenRecordCopy(snapshot.modelState, `${path}.modelState`),
    usage: usageAt(snapshot.usage, `${path}.usage`),
    halt: halted === null ? undefined : haltAt(halted, `${path}.halted`),
  };
}

function haltAt(halted: Record<string, unknown>, path: string): SuspendedRun {
  const { interrupts, responses, input, turn, invocationState } = halted;
  if (!Array.isArray(interrupts) || interrupts.length === 0)
    throw invalid(`${path}.interrupts must be a non-empty array of interrupts { id, name, reason }, got ${describeValue(interrupts)}`);
  interrupts.forEach((interrupt: unknown, index) => {
    if (!isRecord(interrupt) || typeof interrupt.id !== 'string' || typeof interrupt.name !== 'string')
      throw invalid(
        `${path}.interrupts[${index}] must be an interrupt { id, name, reason } with a string id and name, got ${describeValue(interrupt)}`,
      );
  });
  if (!isRecord(responses))
    throw invalid(`${path}.responses must be an object of responses by interrupt id, got ${describeValue(responses)}`);
  if (turn !== null && !isRecord(turn))
    throw invalid(`${path}.turn must be null or a halted turn { message, results }, got ${describeValue(turn)}`);
  if (!isRecord(invocationState)) throw invalid(`${path}.invocationState must be an object, got ${describeValue(invocationState)}`);
  if (turn !== null && !(Array.isArray(input) && input.length === 0))
    throw invalid(
      `${path}.input must be [] when ${path}.turn is a halted turn (a resume replays no input then), got ${describeValue(input)}`,
    );
  return Object.freeze({
    interrupts: Object.freeze(
      (interrupts as readonly Interrupt[]).map((interrupt) =>
        Object.freeze({ id: interrupt.id, name: interrupt.name, reason: interrupt.reason ?? null }),
      ),
    ),
    responses: new Map(Object.entries(responses)),
    input: messagesAt(input, `${path}.input`),
    turn: turn === null ? undefined : turnAt(turn, `${path}.turn`),
    // Handlers share the invocation state by reference and may change it: a new, unfrozen copy.
    invocationState: structuredClone(invocationState),
  });
}

function turnAt(turn: Record<string, unknown>, path: string): PendingTurn {
  const [message] = checkedMessages([turn.message as Message], () => `${path}.message`, `${path}.message must be a message`) as [Message];
  const toolUses = message.content.filter((block): block is ToolUseBlock => block.type === 'toolUse');
  if (message.role !== 'assistant' || toolUses.length === 0)
    throw invalid(`${path}.message must be the assistant message whose tool uses the turn runs, got ${describeValue(message)}`);
  const { results, terminating } = turn;
  if (!Array.isArray(results)) throw invalid(`${path}.results must be an array of toolResult blocks, got ${describeValue(results)}`);
  const byId = new Map<string, ToolResultBlock>();
  results.forEach((block: unknown, index) => {
    const at = `${path}.results[${index}]`;
    checkRecordedResult(block, at);
    const { toolUseId } = block as ToolResultBlock;
    if (!toolUses.some((toolUse) => toolUse.toolUseId === toolUseId) || byId.has(toolUseId))
      throw invalid(`${at}.toolUseId must name a tool use of ${path}.message that no other result answers, got "${toolUseId}"`);
    byId.set(toolUseId, block as ToolResultBlock);
  });
  if (terminating !== undefined && !(Array.isArray(terminating) && terminating.every((id: unknown) => byId.has(id as string)))) {
    throw invalid(
      `${path}.terminating must be an array of the tool-use ids of results in ${path}.results, got ${describeValue(terminating)}`,
    );
  }
  return Object.freeze({
    message,
    toolUses: Object.freeze(toolUses),
    results: byId,
    terminating: new Set((terminating ?? []) as readonly string[]),
  });
}

function messagesAt(value: unknown, path: string): readonly Message[] {
  if (!Array.isArray(value)) throw invalid(`${path} must be an array of messages, got ${describeValue(value)}`);
  return checkedMessages(value as readonly Message[], (index) => `${path}[${index}]`, `${path} must be an array of messages`);
}

/** The messages, each with a known role and content, and every block of them whole (MW-100). */
function checkedMessages(messages: readonly Message[], pathOf: (index: number) => string, expected: string): readonly Message[] {
  return checkMessages(messages, pathOf, expected);
}

function usageAt(value: unknown, path: string): Usage {
  if (!isRecord(value) || !isUsage(value)) {
    throw invalid(`${path} must be { inputTokens, outputTokens, totalTokens } (numbers), got ${describeValue(value)}`);
  }
  return value;
}
