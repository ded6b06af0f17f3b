/**
 * The message checks of MW-106 and MW-136, and what the agent kit trusts
 * without checking again (MW-144): a message, or an array of messages, that
 * passed the checks once and whose every part the checks read is fixed (frozen,
 * read from data properties), so a second check could only give the same
 * answer. A conversation the kit keeps (an agent's `messages`, a `History`
 * the agent was built from) is therefore checked once, when it first enters,
 * and not again each time an agent is built from it.
 *
 * The record is two weak sets private to this module: nothing outside can add
 * to them, a second copy of the package keeps its own (and checks again), and
 * a value nothing else holds is collected as if the record did not exist.
 *
 * An array a history makes by appending to a recorded one is recorded when it
 * is first asked about, not when it is made: every run of an agent makes a few
 * of them, and most are never taken by another agent or written to a snapshot,
 * so checking their new messages at once cost every run the checks (path texts,
 * a property descriptor per field read) for nothing. Asked later, the answer is
 * the same: the new messages are frozen copies the kit made, so every part the
 * checks read is fixed, and a message whose parts are not fails both times.
 */
import { recordExtension } from '../../core/internal';
import { describeValue } from '../../util/describe-value';
import { isObject } from '../../util/is-object';
import { cannotCopy, invalid } from '../errors';
import type { Message } from '../types/message';
import { checkMessageBlocks, isFixed } from './block-check';
import { readProblem } from './value-walk';

/** The roles a message may have; a JavaScript caller may give any value. */
const ROLES: ReadonlySet<unknown> = new Set(['user', 'assistant']);

/** Whether a value has the shape of a message: an object with a known role and a content array (its blocks unchecked). */
export function isMessageShape(value: unknown): value is Message {
  return isObject(value) && ROLES.has((value as Partial<Message>).role) && Array.isArray((value as Partial<Message>).content);
}

/**
 * Fails, with the error `refuse` makes, on the first value of `messages` without the shape of a message
 * ({@link isMessageShape}); `path` names the array.
 */
export function checkMessageShapes(messages: readonly unknown[], path: string, refuse: (problem: string) => Error): void {
  messages.forEach((message, index) => {
    if (!isMessageShape(message))
      throw refuse(
        `${path}[${index}] must be a message { role: 'user' | 'assistant', content: ContentBlock[] }, got ${describeValue(message)}`,
      );
  });
}

/** Frozen arrays every message of which is in {@link checkedMessages}. */
const checkedArrays = new WeakSet<readonly Message[]>();

/** Messages that passed the checks, with every part the checks read fixed. */
const checkedMessages = new WeakSet<Message>();

/**
 * Frozen arrays {@link appendedMessages} made from a recorded array (or from one of these), each with the length of
 * the recorded array it extends: its messages before that index are recorded; those from it on are checked when the
 * array is first asked about ({@link isCheckedArray}). A number rather than the array it extends, so that no earlier
 * array is kept alive by a later one.
 */
const pendingArrays = new WeakMap<readonly Message[], number>();

/**
 * Checks that each message has a known role and a content array, and each block its fields (MW-106, MW-136);
 * an array or message that passed before with every part fixed is taken without reading it again (MW-144).
 *
 * @param pathOf - The path of the message at an index, for the error (`input[0]`, `options.messages[2]`).
 * @param expected - What the caller may pass there, for the error message.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for a malformed message, or one whose reading throws.
 */
export function checkMessages(messages: readonly Message[], pathOf: (index: number) => string, expected: string): readonly Message[] {
  if (isCheckedArray(messages)) return messages;
  messages.forEach((message, index) => {
    if (checkedMessages.has(message)) return;
    let ok: boolean;
    try {
      ok = isMessageShape(message);
    } catch (error) {
      throw cannotCopy(readProblem(pathOf(index), [], error), error);
    }
    if (!ok)
      throw invalid(
        `${expected}, where a message is { role: 'user' | 'assistant', content: ContentBlock[] }; got ${describeValue(message)}`,
      );
  });
  // Block by block too, as a snapshot's messages are when restored: a run never takes what its snapshot would refuse.
  let fixed = Object.isFrozen(messages);
  messages.forEach((message, index) => {
    if (fixed && !isFixed(messages, index)) fixed = false;
    if (checkedMessages.has(message)) return;
    const blocksFixed = checkMessageBlocks(message, index, pathOf);
    if (blocksFixed && Object.isFrozen(message) && isFixed(message, 'role') && isFixed(message, 'content')) checkedMessages.add(message);
    else fixed = false;
  });
  if (fixed) checkedArrays.add(messages);
  return messages;
}

/** Whether a message passes the checks of {@link checkMessages} with every part fixed; it is remembered if it does. */
function isCheckedMessage(message: Message): boolean {
  if (checkedMessages.has(message)) return true;
  try {
    checkMessages([message], () => 'message', 'a message');
  } catch {
    // Not trusted: whoever takes the array that holds it checks it, and reports what is wrong.
    return false;
  }
  return checkedMessages.has(message);
}

/**
 * A frozen copy of `extended`, a plain array of `base`'s messages followed by added ones (each already a frozen
 * copy), trusted when `base` is and every added message passes the checks: appending the kit's own messages to a
 * checked conversation keeps it checked. The added messages are checked when the array is first asked about (see the
 * file's comment).
 */
export function appendedMessages(base: readonly Message[], extended: readonly Message[]): readonly Message[] {
  // Spread, not slice(): V8 copies an array fastest by spreading it whole.
  const next = Object.freeze([...extended]);
  recordExtension(next, base);
  const recordedUpTo = checkedArrays.has(base) ? base.length : pendingArrays.get(base);
  if (recordedUpTo !== undefined) pendingArrays.set(next, recordedUpTo);
  return next;
}

/** Whether `messages` is an array the kit checked, with every part fixed (MW-144); an appended array is decided here, once. */
export function isCheckedArray(messages: readonly Message[]): boolean {
  if (checkedArrays.has(messages)) return true;
  const recordedUpTo = pendingArrays.get(messages);
  if (recordedUpTo === undefined) return false;
  pendingArrays.delete(messages);
  for (let index = recordedUpTo; index < messages.length; index++) if (!isCheckedMessage(messages[index] as Message)) return false;
  checkedArrays.add(messages);
  return true;
}

/** Checks `messages` as {@link checkMessages} does, without throwing; remembered when they pass with every part fixed. */
export function checkQuietly(messages: readonly Message[]): void {
  try {
    checkMessages(messages, (index) => `messages[${index}]`, 'messages');
  } catch {
    // Not trusted: whoever takes them checks them, and reports what is wrong.
  }
}
