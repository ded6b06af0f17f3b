/**
 * The errors of the agent kit: the table of the codes it adds (code → rule
 * of `spec/SPEC.md` → meaning), and every message builder of the kit. The
 * codes of the core it raises too (`ERR_INVALID_OPTIONS`,
 * `ERR_INVALID_HANDLER`, `ERR_INVALID_STAGE`) are in the core's table,
 * `errors/codes.ts`.
 *
 * @packageDocumentation
 */
import type { ErrorCodeEntry, ErrorTable } from '../errors/codes';
import { MiddlewareError } from '../errors/middleware-error';
import { describeValue } from '../util/describe-value';
import { AgentStreamStage, ExecuteToolStage, InvokeModelStage } from './stages';

/** The codes the agent kit adds. */
export const AGENT_ERROR_CODES = {
  ERR_AGENT_BUSY: { rule: 'MW-117', meaning: 'a run of an `Agent` was started while another run of the same agent was going' },
  ERR_INTERRUPT_PENDING: { rule: 'MW-117', meaning: 'new input reached an `Agent` with interrupts pending, or interrupt responses matched no pending interrupt' },
} as const satisfies ErrorTable;

/** A code the agent kit adds (its table, not the core's codes it raises too). */
export type AgentErrorCode = keyof typeof AGENT_ERROR_CODES;

declare global {
  interface StagedMiddlewareErrorCodes extends Record<AgentErrorCode, ErrorCodeEntry> {}
}

/** The error of a malformed agent option or run input, on AgentStreamStage. */
export function invalid(problem: string, cause?: unknown): MiddlewareError {
  return new MiddlewareError({ code: 'ERR_INVALID_OPTIONS', stage: AgentStreamStage.name, message: `Agent: ${problem}.`, ...(cause === undefined ? {} : { cause }) });
}

/** The error of a value the agent could not copy or read: a cycle, too deep a nesting, or a read that threw. */
export function cannotCopy(problem: string, cause: unknown): MiddlewareError {
  return invalid(`${problem}; pass plain data: arrays and objects without cycles, whose properties read without throwing`, cause);
}

/** The error of a run started while another run of the same agent is going. */
export function agentBusy(): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_AGENT_BUSY',
    stage: AgentStreamStage.name,
    message: 'The agent is already running. Wait for the current run to end (or cancel it with agent.cancel()) before starting another; use a second Agent for parallel conversations.',
  });
}

/** The error of a run's input that does not fit the pending interrupts. */
export function interruptPending(problem: string): MiddlewareError {
  return new MiddlewareError({ code: 'ERR_INTERRUPT_PENDING', stage: AgentStreamStage.name, message: `Agent: ${problem}.` });
}

/** The error of an `interrupt()` call without a usable request. */
export function invalidInterruptRequest(stage: string, toolUseId: string): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage,
    message: `interrupt() of tool use "${toolUseId}" needs { name: string, reason?, response? } with a non-empty name; the name identifies the question across a resume.`,
  });
}

/** The error of `History` or `createModelContext` given parts of the wrong shape. */
export function invalidParts(call: string, problem: string): MiddlewareError {
  return new MiddlewareError({ code: 'ERR_INVALID_OPTIONS', stage: InvokeModelStage.name, message: `${call}: ${problem}.` });
}

/** The error of a tool value that JSON cannot carry, given to `toResultContent`. */
export function notJson(problem: string): MiddlewareError {
  return new MiddlewareError({ code: 'ERR_INVALID_OPTIONS', stage: ExecuteToolStage.name, message: `toResultContent(value): the value is not JSON: ${problem}.` });
}

/** The error of a model whose `stream` is not a method returning an async iterable, raised when it is called. */
export function invalidModelStream(stream: unknown, returned?: { readonly value: unknown; readonly isPromise: boolean }): MiddlewareError {
  const problem =
    returned === undefined
      ? `the model's stream must be a method stream(request, options), got ${describeValue(stream)}`
      : `the model's stream() returned ${describeValue(returned.value)}, not an async iterable of stream events`;
  const hint = returned?.isPromise === true
    ? 'An async method returns a promise: write it as an async generator method, `async *stream(request, options) { yield event }`'
    : 'Write it as an async generator method, `async *stream(request, options) { yield event }`';
  return invalidCallee(InvokeModelStage.name, `InvokeModelStage: ${problem}. ${hint}.`);
}

/** The error of a tool whose `run` is not a function when the agent calls it. */
export function invalidToolRun(name: string, run: unknown): MiddlewareError {
  return invalidCallee(ExecuteToolStage.name, `ExecuteToolStage: tool "${name}" has no run function when it is called (run is ${describeValue(run)}); a tool needs run(input, context) returning its result or a promise of it.`);
}

/** A model or tool the terminal cannot call, reported on the terminal. */
function invalidCallee(stage: string, message: string): MiddlewareError {
  return new MiddlewareError({ code: 'ERR_INVALID_HANDLER', stage, phase: 'terminal', handler: 'terminal', message });
}

/** The error of a realm whose standard-stage key holds something other than the three standard stages (MW-200). */
export function foreignStandardStage(name: string, found: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_STAGE',
    stage: name,
    message: `staged-middleware/agent found ${describeValue(found)} as the "${name}" standard stage under globalThis[Symbol.for('staged-middleware.agent.standard-stages.v1')], where every copy of the package keeps the realm's standard stages. Some other code wrote to that key; remove that code, since the agent cannot run handlers on stages it cannot trust.`,
  });
}
