/**
 * What a durable step records and how a replay reads it back (MW-244,
 * MW-246): the events the inner chain yielded, each in its JSON form, and
 * how the chain ended (its last event, a thrown error, or interrupts). A
 * journal's contents are outside data on replay: every record is copied as
 * plain data (`__proto__` an ordinary own key), frozen and checked before
 * anything of it is yielded.
 *
 * @packageDocumentation
 */
import { toJsonValue } from '../agent/values/json-value';
import type { Interrupt } from '../agent/index';
import { InterruptSignal } from '../agent/index';
import { MiddlewareError } from '../core/index';
import { isObject } from '../util/is-object';
import { setOwnEntry } from '../util/own-entry';
import { journalCorrupt, notJournalable } from './errors';
import type { JsonValue } from './types';

/** A thrown value as a journal keeps it: an `Error` by its name, message and (for a `MiddlewareError` or any coded error) code; anything else as its JSON form. */
export type RecordedError =
  | { readonly kind: 'error'; readonly name: string; readonly message: string; readonly code?: string }
  | { readonly kind: 'value'; readonly value: JsonValue };

/** One event of a step: its JSON form, and the value its `error` field held when it had one (a tool's failure). */
export interface RecordedEvent {
  /** The event's JSON form, without its `error` field. */
  readonly event: JsonValue;
  /** What the event's `error` held; absent when it had none. */
  readonly error?: RecordedError;
}

/** How the inner chain ended. */
export type StepOutcome =
  | { readonly kind: 'completed' }
  | { readonly kind: 'threw'; readonly error: RecordedError }
  | { readonly kind: 'interrupted'; readonly interrupts: readonly JsonValue[] };

/** The value a durable step records (MW-244). */
export interface StepRecord {
  /** The format, so a later copy of the library can tell its records apart. */
  readonly format: typeof STEP_FORMAT;
  /** The step's name, checked again on replay. */
  readonly step: string;
  /** Every event the inner chain yielded, in order. */
  readonly events: readonly RecordedEvent[];
  /** How it ended. */
  readonly outcome: StepOutcome;
}

/** The `format` of every step record this copy writes and reads. */
export const STEP_FORMAT = 'staged-middleware.durable-step.v1';

/** The place a value is recorded, for messages. */
interface Where {
  readonly stage: string;
  readonly step: string;
}

/** The JSON form of `value`, or `ERR_NOT_JOURNALABLE` naming what is not JSON. */
export function journalForm(value: unknown, root: string, where: Where): JsonValue {
  const conversion = toJsonValue(value, root);
  if (!conversion.ok) throw notJournalable(where.stage, where.step, conversion.problem);
  return conversion.json as JsonValue;
}

/** A thrown value as the journal keeps it. */
export function recordError(thrown: unknown, root: string, where: Where): RecordedError {
  if (thrown instanceof Error || MiddlewareError.isInstance(thrown)) {
    // Read as unknown: a subclass or a script may have set anything there.
    const { name, message, code } = thrown as { readonly name: unknown; readonly message: unknown; readonly code?: unknown };
    const recorded: RecordedError = {
      kind: 'error',
      name: typeof name === 'string' ? name : 'Error',
      message: typeof message === 'string' ? message : '',
    };
    return typeof code === 'string' ? { ...recorded, code } : recorded;
  }
  return { kind: 'value', value: journalForm(thrown, root, where) };
}

/** An event as the journal keeps it: its JSON form, with an `error` field (a tool failure's) recorded apart. */
export function recordEvent(event: unknown, index: number, where: Where): RecordedEvent {
  if (isObject(event) && Object.hasOwn(event, 'error')) {
    const { error, ...rest } = event as Record<string, unknown>;
    return {
      event: journalForm(rest, `events[${String(index)}]`, where),
      error: recordError(error, `events[${String(index)}].error`, where),
    };
  }
  return { event: journalForm(event, `events[${String(index)}]`, where) };
}

/** The interrupts of a signal as the journal keeps them. */
export function recordInterrupts(signal: InterruptSignal, where: Where): readonly JsonValue[] {
  return signal.interrupts.map((interrupt, index) => journalForm(interrupt, `interrupts[${String(index)}]`, where));
}

/** The value a recorded error stands for on replay: an `Error` of the same name, message and code, or the thrown JSON value. */
export function replayError(recorded: RecordedError): unknown {
  if (recorded.kind === 'value') return recorded.value;
  const error = new Error(recorded.message);
  Object.defineProperty(error, 'name', { value: recorded.name, writable: true, enumerable: false, configurable: true });
  if (recorded.code !== undefined)
    Object.defineProperty(error, 'code', { value: recorded.code, writable: true, enumerable: true, configurable: true });
  return error;
}

/** The event a recorded one stands for on replay (frozen), with its `error` restored. */
export function replayEvent(recorded: RecordedEvent): unknown {
  if (recorded.error === undefined) return recorded.event;
  const event: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(recorded.event as Record<string, unknown>)) setOwnEntry(event, key, value);
  setOwnEntry(event, 'error', replayError(recorded.error));
  return Object.freeze(event);
}

/** The signal a recorded interruption throws again on replay. */
export function replaySignal(interrupts: readonly JsonValue[]): InterruptSignal {
  return new InterruptSignal(interrupts as unknown as readonly Interrupt[]);
}

/**
 * Reads a step record a journal gave back (MW-246): copies it as plain data,
 * frozen, and checks every part the replay uses.
 *
 * @throws MiddlewareError `ERR_JOURNAL_CORRUPT` for anything but a record of {@link STEP_FORMAT} written for step `step`,
 *   naming the first part that is wrong.
 */
export function readStepRecord(value: unknown, runId: string, step: string): StepRecord {
  const corrupt = (problem: string, found: unknown): MiddlewareError => journalCorrupt(runId, `record of step "${step}"`, problem, found);
  const conversion = toJsonValue(value, 'record');
  if (!conversion.ok) throw corrupt(conversion.problem, value);
  const record = conversion.json;
  if (!isObject(record) || Array.isArray(record)) throw corrupt('it must be an object', record);
  const fields = record as Record<string, unknown>;
  if (fields.format !== STEP_FORMAT) throw corrupt(`its format must be "${STEP_FORMAT}"`, fields.format);
  if (fields.step !== step) throw corrupt(`it must be the record of step "${step}"`, fields.step);
  if (!Array.isArray(fields.events)) throw corrupt('its events must be an array', fields.events);
  (fields.events as readonly unknown[]).forEach((event, index) => {
    checkEvent(event, (problem, found) => corrupt(`events[${String(index)}] ${problem}`, found));
  });
  checkOutcome(fields.outcome, corrupt);
  return record as unknown as StepRecord;
}

type Corrupt = (problem: string, found: unknown) => MiddlewareError;

function checkEvent(recorded: unknown, corrupt: Corrupt): void {
  if (!isObject(recorded) || Array.isArray(recorded)) throw corrupt('must be an object { event, error? }', recorded);
  const { event, error } = recorded as { readonly event?: unknown; readonly error?: unknown };
  if (!isObject(event) || Array.isArray(event) || typeof (event as { type?: unknown }).type !== 'string')
    throw corrupt('must hold an event object with a string type', event);
  if (Object.hasOwn(recorded, 'error')) checkError(error, corrupt);
}

function checkError(error: unknown, corrupt: Corrupt): void {
  if (!isObject(error) || Array.isArray(error)) throw corrupt('error must be an object { kind, ... }', error);
  const fields = error as Record<string, unknown>;
  if (fields.kind === 'value' && Object.hasOwn(fields, 'value')) return;
  if (
    fields.kind === 'error' &&
    typeof fields.name === 'string' &&
    typeof fields.message === 'string' &&
    (!Object.hasOwn(fields, 'code') || typeof fields.code === 'string')
  )
    return;
  throw corrupt("error must be { kind: 'error', name, message, code? } or { kind: 'value', value }", error);
}

function checkOutcome(outcome: unknown, corrupt: Corrupt): void {
  const fields = (isObject(outcome) && !Array.isArray(outcome) ? outcome : {}) as Record<string, unknown>;
  if (fields.kind === 'completed') return;
  if (fields.kind === 'threw') {
    checkError(fields.error, (problem, found) => corrupt(`its outcome's ${problem}`, found));
    return;
  }
  if (fields.kind === 'interrupted' && Array.isArray(fields.interrupts) && fields.interrupts.length > 0) {
    for (const interrupt of fields.interrupts as readonly unknown[]) {
      const parts = (isObject(interrupt) ? interrupt : {}) as Record<string, unknown>;
      if (typeof parts.id !== 'string' || typeof parts.name !== 'string')
        throw corrupt('each interrupt must have a string id and name', interrupt);
    }
    return;
  }
  throw corrupt(
    "its outcome must be { kind: 'completed' }, { kind: 'threw', error } or { kind: 'interrupted', interrupts: [...] }",
    outcome,
  );
}
