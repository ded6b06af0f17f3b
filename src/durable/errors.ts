/**
 * The errors of durable runs: the table of the codes the entry point adds
 * (code → rule of `spec/SPEC.md` → meaning) and their message builders. The
 * core's `ERR_INVALID_OPTIONS` it raises too is in the core's table.
 *
 * @packageDocumentation
 */
import type { ErrorCodeEntry, ErrorTable } from '../core/internal';
import { MiddlewareError } from '../core/index';
import { describeValue } from '../util/describe-value';

/** The codes durable runs add. */
export const DURABLE_ERROR_CODES = {
  ERR_REPLAY_DIVERGED: {
    rule: 'MW-247',
    meaning:
      "a replayed run asked for a step or wait other than the one its journal holds at that position (the run's code or middleware changed, or something outside steps is not deterministic)",
  },
  ERR_NOT_JOURNALABLE: {
    rule: 'MW-244',
    meaning:
      'an event, thrown error or interrupt of a durable step holds a value a journal cannot keep as JSON (a BigInt, a cycle, a function)',
  },
  ERR_JOURNAL_CORRUPT: {
    rule: 'MW-246',
    meaning: 'a journal gave back a step record or wait value that is not of the form the durable layer wrote',
  },
} as const satisfies ErrorTable;

/** A code durable runs add (its table, not the core's codes it raises too). */
export type DurableErrorCode = keyof typeof DURABLE_ERROR_CODES;

declare global {
  interface StagedMiddlewareErrorCodes extends Record<DurableErrorCode, ErrorCodeEntry> {}
}

/** What a journal entry or a call is, for a divergence message: `step "invokeModel:1"`, `wait "executeTool:t1:approve"`. */
export interface JournalPosition {
  /** A step or a wait. */
  readonly kind: 'step' | 'wait';
  /** Its name. */
  readonly name: string;
}

function positionText(position: JournalPosition | undefined): string {
  return position === undefined ? 'nothing (the journal ends there)' : `${position.kind} "${position.name}"`;
}

/** The error of a replay that asks for something other than the journal's entry at `index` (MW-247). */
export function replayDiverged(runId: string, index: number, expected: JournalPosition | undefined, got: JournalPosition): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_REPLAY_DIVERGED',
    stage: got.kind === 'step' ? stageOf(got.name) : undefined,
    message: `Durable run "${runId}" diverged from its journal at entry ${String(index + 1)}: the journal holds ${positionText(expected)}, the replay asked for ${positionText(got)}. Everything outside steps must replay identically: the same handlers in the same order, the same turn decisions, no clock or random value outside a step. Restore the code the run started with, or start a new run id.`,
  });
}

/** The stage a step name starts with, when it names one (`invokeModel:2` → `invokeModel`). */
function stageOf(name: string): string | undefined {
  const stage = name.split(':')[0];
  return stage === 'invokeModel' || stage === 'executeTool' ? stage : undefined;
}

/** The error of a step whose event, error or interrupt cannot be kept as JSON (MW-244). */
export function notJournalable(stage: string, step: string, problem: string): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_NOT_JOURNALABLE',
    stage,
    handler: 'durableSteps',
    message: `Durable step "${step}" cannot be journaled: ${problem}. A journal keeps JSON only: give the model, the tool and the handlers inside the durable layer plain data (strings, numbers, booleans, null, arrays, objects), or convert the value before it is yielded.`,
  });
}

/** The error of a journal entry that is not of the form the durable layer wrote (MW-246). */
export function journalCorrupt(runId: string, what: string, problem: string, found: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_JOURNAL_CORRUPT',
    handler: 'durableSteps',
    message: `Durable run "${runId}": the journal's ${what} is not what the durable layer records (${problem}; found ${describeValue(found)}). The journal was changed or written by other code: restore it, or start a new run id.`,
  });
}

/** The error of a malformed argument of the entry point's functions. */
export function invalidDurableOption(caller: string, problem: string, found: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    phase: 'register',
    handler: caller,
    message: `${caller}(): ${problem}, got ${describeValue(found)}.`,
  });
}
