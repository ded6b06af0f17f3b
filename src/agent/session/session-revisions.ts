/**
 * What every store that keeps revisions shares (MW-253, MW-256): new
 * revisions, the check of a save's options, and the decoding of a record read
 * back from outside (a file, a row, a Redis hash), which is untrusted.
 *
 * @packageDocumentation
 */
import { describeValue } from '../../util/describe-value';
import { isObject } from '../../util/is-object';
import { ownEntry } from '../../util/own-entry';
import { invalidSessionStore, malformedSessionRecord } from '../errors';
import type { AgentSnapshot, SessionRecord, SessionSaveOptions } from '../types/snapshot';
import { frozenCopy } from '../values/freeze';

/** A revision no store gave before: random, so a session deleted and saved again never repeats one (no ABA). */
export function newRevision(): string {
  return crypto.randomUUID();
}

/**
 * The revision `options` expects: a string, `null` (no snapshot), or `undefined` (no check).
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for options that are not an object, or an `expectedRevision` of
 *   another type.
 */
export function expectedRevisionOf(options: SessionSaveOptions | undefined, store: string): string | null | undefined {
  if (options === undefined) return undefined;
  if (!isObject(options))
    throw invalidSessionStore(`options must be { expectedRevision?: string | null }, got ${describeValue(options)}`, store);
  const expected = (options as { expectedRevision?: unknown }).expectedRevision;
  if (expected === undefined || expected === null || typeof expected === 'string') return expected;
  throw invalidSessionStore(`options.expectedRevision must be a string or null, got ${describeValue(expected)}`, store);
}

/** Whether a store holding `current` (`undefined`: nothing) may be written by a caller expecting `expected`. */
export function revisionMatches(expected: string | null | undefined, current: string | undefined): boolean {
  if (expected === undefined) return true;
  return expected === null ? current === undefined : current === expected;
}

/**
 * Reads a record from outside (`{ revision, snapshot }`, the snapshot as an
 * object or as JSON text), reading only own properties, and returns a frozen
 * copy. Whether the snapshot itself is well formed is checked where it is
 * restored (MW-136), as for any snapshot.
 *
 * @throws MiddlewareError `ERR_SESSION_RECORD` when `value` is not such a record, naming what is wrong.
 */
export function decodeSessionRecord(value: unknown, store: string, sessionId: string): SessionRecord {
  const refuse = (problem: string): Error => malformedSessionRecord(store, sessionId, problem);
  if (!isObject(value) || Array.isArray(value)) throw refuse(`expected an object { revision, snapshot }, got ${describeValue(value)}`);
  const revision = ownEntry(value, 'revision');
  if (typeof revision !== 'string' || revision.length === 0)
    throw refuse(`revision must be a non-empty string, got ${describeValue(revision)}`);
  let snapshot = ownEntry(value, 'snapshot');
  if (typeof snapshot === 'string') {
    try {
      snapshot = JSON.parse(snapshot) as unknown;
    } catch (error) {
      throw refuse(`snapshot is not JSON text (${(error as Error).message})`);
    }
  }
  if (!isObject(snapshot) || Array.isArray(snapshot)) throw refuse(`snapshot must be an object, got ${describeValue(snapshot)}`);
  const copy = frozenCopy(snapshot, 'snapshot', (problem) => refuse(problem)) as AgentSnapshot;
  return Object.freeze({ revision, snapshot: copy });
}
