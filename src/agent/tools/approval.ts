/**
 * Human approval of a tool call (MW-287 – MW-289): the one mechanism behind
 * a tool's `needsApproval` and the `approvalPolicy` handler. The call asks
 * the question `toolApproval` through its `interrupt()`, so the run halts,
 * and the decision the resume brings either runs the tool (with the model's
 * input or the human's), or answers the model with the rejection.
 */
import { MiddlewareError } from '../../core/index';
import { describeValue } from '../../util/describe-value';
import { isObject } from '../../util/is-object';
import { frozenCopy } from '../values/freeze';
import type { ExecuteToolContext } from '../types/stages';
import type { ApprovalCheckContext, ApprovalDecision, ApprovalDecisionType, ApprovalRequest, NeedsApproval } from '../types/tool';
import { ExecuteToolStage } from '../stages';

/**
 * The name of the question a call that needs approval asks (MW-287): its id is
 * `executeTool:<toolUseId>:toolApproval`, its reason an {@link ApprovalRequest}.
 *
 * @example
 * ```ts
 * const result = await agent.invoke('Delete the old logs');
 * const asked = result.interrupts.filter((interrupt) => interrupt.name === TOOL_APPROVAL);
 * ```
 */
export const TOOL_APPROVAL = 'toolApproval';

/** Every decision, in the order the request lists them. */
export const ALL_DECISIONS: readonly ApprovalDecisionType[] = /*#__PURE__*/ Object.freeze(['approve', 'edit', 'reject']);

/** When a call needs approval, which decisions it accepts, and what the human is told. */
export interface ApprovalRule {
  /** Whether the call needs approval. */
  readonly when: NeedsApproval;
  /** The decisions an answer may take. */
  readonly decisions: readonly ApprovalDecisionType[];
  /** Shown to the human in the request, when given. */
  readonly description?: string;
}

/** What approval decided: run the tool with this input, or answer the model with this error text instead. */
export type ApprovalOutcome = { readonly run: true; readonly input: unknown } | { readonly run: false; readonly message: string };

/**
 * Asks for approval of the call of `context` when `rule` says it needs it, and
 * acts on the answer. A call that needs none runs with the model's input.
 *
 * @throws InterruptSignal When no answer is known yet (the run halts on the question).
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `executeTool`) for a `needsApproval` that is neither a
 *   boolean nor a function, a predicate that returns no boolean, or an answer that is no allowed decision.
 *   An error the predicate throws passes through unchanged.
 */
export async function decideApproval(context: ExecuteToolContext, rule: ApprovalRule): Promise<ApprovalOutcome> {
  const { toolUse } = context;
  if (!(await needsApproval(context, rule.when))) return { run: true, input: toolUse.input };
  const reason: ApprovalRequest = frozenCopy({
    type: TOOL_APPROVAL,
    toolUseId: toolUse.toolUseId,
    name: toolUse.name,
    input: toolUse.input,
    decisions: rule.decisions,
    ...(rule.description === undefined ? {} : { description: rule.description }),
  } as const);
  const { response } = context.interrupt({ name: TOOL_APPROVAL, reason });
  const decision = readApprovalDecision(response, rule.decisions, `the answer to the approval of tool use "${toolUse.toolUseId}"`);
  if (decision.decision === 'approve') return { run: true, input: toolUse.input };
  if (decision.decision === 'edit') return { run: true, input: decision.input };
  return { run: false, message: decision.message ?? `The call of tool "${toolUse.name}" was rejected.` };
}

/**
 * Whether `when` asks for the call `call` describes: the boolean, or the
 * predicate's answer for the call's input and the frozen `{ toolUse, invocationState }`.
 *
 * @param notBoolean - The error of a predicate's answer that is no boolean; the approval error on `executeTool` by default.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `executeTool`) for a `when` that is neither a boolean nor a
 *   function, or the error of `notBoolean`. What the predicate throws passes through unchanged.
 */
export async function needsApproval(
  call: ApprovalCheckContext,
  when: NeedsApproval,
  notBoolean: (answer: unknown) => MiddlewareError = (answer) =>
    invalidApproval(`the needsApproval predicate of tool "${call.toolUse.name}" must return a boolean, got ${describeValue(answer)}`),
): Promise<boolean> {
  if (typeof when === 'boolean') return when;
  if (typeof when !== 'function')
    throw invalidApproval(`needsApproval must be a boolean or a function (input, context) => boolean, got ${describeValue(when)}`);
  const { toolUse, invocationState } = call;
  const asks: unknown = await when(toolUse.input, Object.freeze({ toolUse, invocationState }));
  if (typeof asks !== 'boolean') throw notBoolean(asks);
  return asks;
}

/**
 * Reads an answer to an approval question: a frozen copy of the decision.
 *
 * @param stage - The stage the error names: `executeTool` for the call, `agentStream` for a resume refused at its start.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (on `stage`) unless it is `{ decision: 'approve' }`,
 *   `{ decision: 'edit', input }` (input JSON) or `{ decision: 'reject', message? }` (message a string), with a
 *   decision in `allowed`.
 */
export function readApprovalDecision(
  response: unknown,
  allowed: readonly unknown[],
  what: string,
  stage: string = ExecuteToolStage.name,
): ApprovalDecision {
  const kind = isObject(response) ? (response as { decision?: unknown }).decision : undefined;
  const expected = allowed
    .map((decision) => `{ decision: '${String(decision)}'${decision === 'edit' ? ', input' : decision === 'reject' ? ', message?' : ''} }`)
    .join(' or ');
  if (typeof kind !== 'string' || !allowed.includes(kind))
    throw invalidApproval(`${what} must be ${expected}, got ${describeValue(response)}`, undefined, stage);
  const copy: object = frozenCopy(response as object, 'the approval answer', (problem, cause) =>
    invalidApproval(`${what} must be plain data, but ${problem}`, cause, stage),
  );
  if (kind === 'edit' && !('input' in copy))
    throw invalidApproval(`${what} decides 'edit' and must give the tool's new input as input`, undefined, stage);
  const message = (copy as { message?: unknown }).message;
  if (kind === 'reject' && message !== undefined && typeof message !== 'string')
    throw invalidApproval(
      `${what} decides 'reject'; its message, when given, must be a string, got ${describeValue(message)}`,
      undefined,
      stage,
    );
  return copy as ApprovalDecision;
}

/** The error of a malformed approval setting or answer. */
function invalidApproval(problem: string, cause?: unknown, stage: string = ExecuteToolStage.name): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage,
    message: `Approval: ${problem}.`,
    ...(cause === undefined ? {} : { cause }),
  });
}
