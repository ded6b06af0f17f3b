/**
 * The errors of the agent kit: the table of the codes it adds (code → rule of
 * `spec/SPEC.md` → meaning), and the message builders of its options, runs,
 * turns, interrupts, snapshots, contributed tools and middleware; those of
 * calling the model and tools are in `tools/call-errors.ts`. The codes of the core
 * it raises too (`ERR_INVALID_OPTIONS`, `ERR_INVALID_HANDLER`,
 * `ERR_INVALID_STAGE`, `ERR_NO_RESULT`) are in the core's table,
 * `core/errors.ts`.
 *
 * @packageDocumentation
 */
import type { ErrorCodeEntry, ErrorTable } from '../core/internal';
import { MiddlewareError } from '../core/index';
import { describeValue } from '../util/describe-value';
import { AgentStreamStage, CompressContextStage, ExecuteToolStage, InvokeModelStage, TurnStage } from './stages';

/** The codes the agent kit adds. */
export const AGENT_ERROR_CODES = {
  ERR_AGENT_BUSY: { rule: 'MW-117', meaning: 'a run of an `Agent` was started while another run of the same agent was going' },
  ERR_INTERRUPT_PENDING: {
    rule: 'MW-117',
    meaning:
      'a run started while interrupts are pending with new input or without responses, or a response named an id that is neither pending nor `agentStream:<name>`',
  },
  ERR_INTERRUPT_AFTER_RESULT: {
    rule: 'MW-134',
    meaning: '`interrupt()` would have halted after its run produced its result (or ended), when halting can no longer take effect',
  },
  ERR_SNAPSHOT_VERSION: {
    rule: 'MW-136',
    meaning: 'an agent snapshot is of a format version this copy of the library does not read (a newer one, say)',
  },
  ERR_SESSION_CONFLICT: {
    rule: 'MW-255',
    meaning:
      'a session store save or delete expected a revision (or no snapshot) but another save or delete of the same session got there first; nothing was written',
  },
  ERR_SESSION_RECORD: {
    rule: 'MW-256',
    meaning: 'a session store read back a record that is not a revision with a snapshot (a row or key another program wrote, say)',
  },
  ERR_TOOL_INPUT_INVALID: {
    rule: 'MW-185',
    meaning: 'a tool made by `defineTool` was called with input its schema rejects; the agent sends it back as an error result',
  },
  ERR_PII_DETECTED: {
    rule: 'MW-275',
    meaning: 'the `pii` middleware found personal data where its strategy is `block` (user input, model output or a tool result)',
  },
  ERR_RUN_STATE_INVALID: {
    rule: 'MW-318',
    meaning: "a value read or written through a state key of `createStateKey` was rejected by the key's schema",
  },
} as const satisfies ErrorTable;

/** A code the agent kit adds (its table, not the core's codes it raises too). */
export type AgentErrorCode = keyof typeof AGENT_ERROR_CODES;

declare global {
  interface StagedMiddlewareErrorCodes extends Record<AgentErrorCode, ErrorCodeEntry> {}
}

/** The error of a malformed agent option or run input, on AgentStreamStage. */
export function invalid(problem: string, cause?: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: AgentStreamStage.name,
    message: `Agent: ${problem}.`,
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * The error of a value the agent could not copy or read: a cycle, too deep a nesting, or a read that threw;
 * `as` makes it (the agent's {@link invalid} unless given, {@link invalidTurn} for a turn's messages).
 */
export function cannotCopy(
  problem: string,
  cause: unknown,
  as: (problem: string, cause: unknown) => MiddlewareError = invalid,
): MiddlewareError {
  return as(`${problem}; pass plain data: arrays and objects without cycles, whose properties read without throwing`, cause);
}

/** The error of a run started while another run of the same agent is going. */
export function agentBusy(): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_AGENT_BUSY',
    stage: AgentStreamStage.name,
    message:
      'The agent is already running. Wait for the current run to end (or cancel it with agent.cancel()) before starting another; use a second Agent for parallel conversations.',
  });
}

/** The error of a run's input that does not fit the pending interrupts. */
export function interruptPending(problem: string): MiddlewareError {
  return new MiddlewareError({ code: 'ERR_INTERRUPT_PENDING', stage: AgentStreamStage.name, message: `Agent: ${problem}.` });
}

/** The error of an `interrupt()` call without a usable request; `where` names the tool use or the stage. */
export function invalidInterruptRequest(stage: string, where: string): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage,
    message: `interrupt() ${where} needs { name: string, reason?, response? } (or an array of them) with a non-empty name; the name identifies the question across a resume.`,
  });
}

/** The error of `interrupt()` asked one name twice in one call (MW-133). */
export function repeatedQuestion(stage: string, where: string, name: string): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage,
    message: `interrupt() ${where} was asked "${name}" twice in one call; give each question of one call its own name, so each has its own id.`,
  });
}

/** The error of `interrupt()` asked to halt when halting can no longer take effect (MW-134). */
export function interruptTooLate(stage: string, where: string, ids: readonly string[], late: string): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INTERRUPT_AFTER_RESULT',
    stage,
    message: `interrupt() ${where} asked ${ids.map((id) => `"${id}"`).join(', ')} after ${late}, when halting can no longer take effect. Ask before the result exists: in a Wrap handler, before calling next().`,
  });
}

/** The error of a turn decision or action the loop cannot act on (MW-126, MW-127). */
export function invalidTurn(problem: string, cause?: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: TurnStage.name,
    message: `TurnStage: ${problem}.`,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The error of `turnAction()` given something other than a function. */
export function invalidTurnDecider(decide: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: TurnStage.name,
    phase: 'register',
    handler: 'turnAction',
    message: `turnAction(decide): decide must be a function (context, decided) => TurnAction | undefined, got ${describeValue(decide)}.`,
  });
}

/** The error of a snapshot whose format is newer than this copy reads (MW-136). */
export function snapshotTooNew(path: string, version: number, supported: number): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_SNAPSHOT_VERSION',
    stage: AgentStreamStage.name,
    message: `Agent: ${path} has format version ${version}, newer than this copy of staged-middleware reads (${supported}). Upgrade staged-middleware where the snapshot is restored.`,
  });
}

/** The error of a session store built, or called, with options it cannot use (MW-137, MW-253). */
export function invalidSessionStore(problem: string, store = 'new FileSessionStore(options)'): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: AgentStreamStage.name,
    message: `${store}: ${problem}.`,
  });
}

/** The error of a save or delete whose expected revision another writer replaced first (MW-255). */
export function sessionConflict(store: string, operation: 'save' | 'delete', sessionId: string, expected: string | null): MiddlewareError {
  const wanted = expected === null ? 'no snapshot' : `revision "${expected}"`;
  return new MiddlewareError({
    code: 'ERR_SESSION_CONFLICT',
    message: `${store}: the ${operation} of session "${sessionId}" expected ${wanted}, but another save or delete of the session came first; nothing was written. Load the session again (Agent.fromSession) and go on from what it holds, or leave the session to the worker that saved it.`,
  });
}

/** The error of a record a session store read back that is not `{ revision, snapshot }` (MW-256). */
export function malformedSessionRecord(store: string, sessionId: string, problem: string): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_SESSION_RECORD',
    message: `${store}: what the store holds for session "${sessionId}" is not a session record: ${problem}. Give the store a table or key prefix of its own, or delete the record.`,
  });
}

/** The error of `errorsAsAnswers()` given options it cannot use (MW-129). */
export function invalidAnswerOption(problem: string, value: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    phase: 'register',
    handler: 'errorsAsAnswers',
    message: `errorsAsAnswers(): ${problem}, got ${describeValue(value)}.`,
  });
}

/** The error `errorsAsAnswers` answers for layers inside it that ended without a result (MW-129). */
export function droppedResult(stage: string, handler: string): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_NO_RESULT',
    stage,
    phase: 'wrap',
    handler,
    message: `The layers inside "${handler}" of stage "${stage}" ended without a result (no event, or a last event the stage does not take as its result); "${handler}" answers for them. A Wrap handler must yield the result of next() (or one of its own).`,
  });
}

/** The error of `History` or `createModelContext` given parts of the wrong shape. */
export function invalidParts(call: string, problem: string): MiddlewareError {
  return new MiddlewareError({ code: 'ERR_INVALID_OPTIONS', stage: InvokeModelStage.name, message: `${call}: ${problem}.` });
}

/** The error of token counts that are not three finite numbers, given to `addUsage` (MW-310). */
export function invalidUsage(problem: string): MiddlewareError {
  return new MiddlewareError({ code: 'ERR_INVALID_OPTIONS', stage: InvokeModelStage.name, message: `${problem}.` });
}

/** The error of a value provided under `ToolsKey` that is not a tool (MW-160), failing its bundle's `setup`. */
export function notATool(tool: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: ExecuteToolStage.name,
    phase: 'register',
    message: `registrar.provide(ToolsKey, tool): a tool needs { spec: { name, description, inputSchema }, run(input, context) } (leave run out for an external tool), got ${describeValue(tool)}.`,
  });
}

/** The error of a contributed tool named like one of the agent's own tools (MW-160). */
export function ownToolProvided(name: string, bundle: string, inAncestor: boolean): MiddlewareError {
  const where = inAncestor ? 'to an ancestor of the registry the agent runs on' : 'to the registry the agent runs on';
  return new MiddlewareError({
    code: 'ERR_DUPLICATE_ID',
    stage: ExecuteToolStage.name,
    phase: 'register',
    message: `Tool "${name}" is one of the agent's own tools, and bundle "${bundle}" provides a tool of that name ${where}. The model calls tools by name, so names must be unique: rename one of them, or leave one out.`,
  });
}

/** The error of a context budget, a count or a compression result the agent cannot use (MW-164). */
export function invalidCompression(problem: string): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: CompressContextStage.name,
    message: `CompressContextStage: ${problem}.`,
  });
}

/** The error of a model call a middleware makes without a caller or messages (MW-166). */
export function invalidMiddlewareCall(call: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: InvokeModelStage.name,
    message: `invokeModel(call): a middleware model call needs { caller: non-empty string, messages: Message[], systemPrompt?, toolSpecs?, model? }, got ${describeValue(call)}.`,
  });
}

/** Personal data found where `pii`'s strategy is `block`; the message names the kind, never the data. */
export function piiDetected(stage: string, where: string, type: string): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_PII_DETECTED',
    stage,
    handler: 'pii',
    message: `pii: found ${type} data in ${where}, where the strategy is block. Remove it, or choose redact, mask or hash for ${where}.`,
  });
}

/** The error of a `defineMiddleware` definition it cannot compile (MW-316); `path` locates the value in the definition. */
export function invalidDefinition(name: unknown, path: string, problem: string, value: unknown): MiddlewareError {
  const of = typeof name === 'string' ? ` "${name}"` : '';
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    phase: 'register',
    handler: 'defineMiddleware',
    message: `defineMiddleware()${of}: ${path} ${problem}, got ${describeValue(value)}.`,
  });
}

/** The error of `createStateKey` given a bad name or schema, or of a key given no context (MW-317). */
export function invalidStateKey(problem: string, value: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    phase: 'register',
    handler: 'createStateKey',
    message: `createStateKey(): ${problem}, got ${describeValue(value)}.`,
  });
}

/** The error of a value a state key's schema rejected (MW-318). */
export function stateValueRejected(name: string, access: 'read' | 'written', issues: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_RUN_STATE_INVALID',
    message: `The value ${access} under the state key "${name}" does not fit its schema (see cause); ${
      access === 'read' ? 'whoever stored it there should write it through the key' : "pass a value of the key's type"
    }.`,
    cause: issues,
  });
}
