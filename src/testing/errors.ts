/**
 * The errors of the test kit: the table of the codes it adds (code → rule of
 * `spec/SPEC.md` → meaning), and the message builders of its doubles. The
 * codes of the core it raises too (`ERR_INVALID_OPTIONS`) are in the core's
 * table, `core/errors.ts`.
 *
 * @packageDocumentation
 */
import { ExecuteToolStage, InvokeModelStage } from '../agent/stages';
import type { ErrorCodeEntry, ErrorTable } from '../core/internal';
import { MiddlewareError } from '../core/index';

/** The codes the test kit adds. */
export const TESTING_ERROR_CODES = {
  ERR_SCRIPT_EXHAUSTED: { rule: 'MW-118', meaning: 'a `ScriptedModel` was called more times than its script has turns' },
} as const satisfies ErrorTable;

/** A code the test kit adds (its table, not the core's codes it raises too). */
export type TestingErrorCode = keyof typeof TESTING_ERROR_CODES;

declare global {
  interface StagedMiddlewareErrorCodes extends Record<TestingErrorCode, ErrorCodeEntry> {}
}

/** The error of a scripted model called more often than its script has turns. */
export function scriptExhausted(calls: number, turns: number): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_SCRIPT_EXHAUSTED',
    stage: InvokeModelStage.name,
    message: `ScriptedModel was called ${calls} times, but its script has ${turns} turn${turns === 1 ? '' : 's'}. Add a turn for every model call the test makes (retries included).`,
  });
}

/** The error of a script the scripted model cannot play. */
export function invalidTurn(problem: string): MiddlewareError {
  return new MiddlewareError({ code: 'ERR_INVALID_OPTIONS', stage: InvokeModelStage.name, message: `${problem}.` });
}

/** The error of options a scripted tool cannot run with. */
export function invalidToolOptions(problem: string): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: ExecuteToolStage.name,
    message: `new ScriptedTool(options): ${problem}.`,
  });
}
