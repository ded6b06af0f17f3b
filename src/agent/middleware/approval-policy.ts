/**
 * `approvalPolicy()`: human approval by tool name, for tools the policy's
 * author does not define (contributed ones, a sub-agent, tools of another
 * package). The same question, decisions and effect as a tool's own
 * `needsApproval` (MW-288): both go through `decideApproval`.
 */
import type { WrapHandler } from '../../core/index';
import { invalidOption } from '../../middleware/errors';
import { isObject } from '../../util/is-object';
import { ALL_DECISIONS, decideApproval, type ApprovalRule } from '../tools/approval';
import { errorResult } from '../tools/tool-terminal';
import type { ExecuteToolContext, ExecuteToolEvent } from '../types/stages';
import type { ApprovalDecisionType, NeedsApproval } from '../types/tool';

/** What the policy says about one tool: when it needs approval, what an answer may decide, and what the human is told. */
export interface ApprovalPolicyRule {
  /** Whether a call needs approval (default `true`). */
  readonly when?: NeedsApproval;
  /** The decisions an answer may take (default all three). */
  readonly decisions?: readonly ApprovalDecisionType[];
  /** Given to the human in the request. */
  readonly description?: string;
}

/** The policy: by tool name, `true` (every call), `false` (none), a predicate, or a rule. Tools it does not name run as they are. */
export type ApprovalPolicy = Readonly<Record<string, NeedsApproval | ApprovalPolicyRule>>;

const FACTORY = 'approvalPolicy';

/**
 * An ExecuteToolStage Wrap handler named `approvalPolicy` that asks a human
 * to approve the calls `policy` names (MW-288): the run halts on the question
 * `toolApproval` (id `executeTool:<toolUseId>:toolApproval`), and the answer
 * given to `resume` approves the call, edits its input (`next()` gets the
 * context with the new input) or rejects it (the model reads the message as
 * the call's error result). Register it outermost among the tool handlers
 * (a low `order`) so that guards and retries run inside it.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`phase: 'register'`, `handler: 'approvalPolicy'`) when `policy` is not
 *   an object of booleans, functions and rules, or a rule names a decision other than approve, edit and reject.
 * @example
 * ```ts
 * registry.add(ExecuteToolStage.Wrap, approvalPolicy({ send_email: true, delete_file: { decisions: ['approve', 'reject'] } }));
 * const halted = await agent.invoke('Mail the report to Ada');
 * await agent.resume({ [halted.interrupts[0]!.id]: { decision: 'approve' } });
 * ```
 */
export function approvalPolicy(policy: ApprovalPolicy): WrapHandler<ExecuteToolContext, ExecuteToolEvent> {
  const rules = readPolicy(policy);
  const handler: WrapHandler<ExecuteToolContext, ExecuteToolEvent> = async function* (context, next) {
    const rule = rules.get(context.toolUse.name);
    if (rule === undefined) return yield* next();
    const approval = await decideApproval(context, rule);
    if (!approval.run) {
      yield errorResult(context.toolUse, approval.message);
      return;
    }
    if (approval.input === context.toolUse.input) return yield* next();
    yield* next(Object.freeze({ ...context, toolUse: Object.freeze({ ...context.toolUse, input: approval.input }) }));
  };
  // Named explicitly: a bundler renames a function whose name the module's scope already takes.
  return Object.defineProperty(handler, 'name', { value: FACTORY });
}

/** The policy's rules by tool name, each checked once. */
function readPolicy(policy: unknown): ReadonlyMap<string, ApprovalRule> {
  if (!isObject(policy) || Array.isArray(policy))
    throw invalidOption(
      FACTORY,
      'the policy must be an object { [toolName]: true | false | (input, context) => boolean | { when?, decisions?, description? } }',
      policy,
    );
  const rules = new Map<string, ApprovalRule>();
  for (const name of Object.keys(policy))
    rules.set(
      name,
      readApprovalRule((policy as Record<string, unknown>)[name], `the rule of tool "${name}"`, (problem, value) =>
        invalidOption(FACTORY, problem, value),
      ),
    );
  return rules;
}

/**
 * One rule of a policy, as `approvalPolicy` takes it (MW-288): `true`,
 * `false`, a predicate, or `{ when?, decisions?, description? }`, its
 * decisions in the order of {@link ALL_DECISIONS}.
 *
 * @param where - Names the rule in the messages.
 * @param refuse - The error of a problem with `value`, the part of the rule that has it.
 * @param shape - The rule object as the messages show it.
 * @throws The error of `refuse` when `entry` is none of these.
 */
export function readApprovalRule(
  entry: unknown,
  where: string,
  refuse: (problem: string, value: unknown) => Error,
  shape = '{ when?, decisions?, description? }',
): ApprovalRule {
  if (typeof entry === 'boolean' || typeof entry === 'function') return { when: entry as NeedsApproval, decisions: ALL_DECISIONS };
  if (!isObject(entry) || Array.isArray(entry)) throw refuse(`${where} must be a boolean, a function or ${shape}`, entry);
  const { when = true, decisions = ALL_DECISIONS, description } = entry as { when?: unknown; decisions?: unknown; description?: unknown };
  if (typeof when !== 'boolean' && typeof when !== 'function') throw refuse(`${where} needs when to be a boolean or a function`, when);
  if (
    !Array.isArray(decisions) ||
    decisions.length === 0 ||
    decisions.some((decision: unknown) => !(ALL_DECISIONS as readonly unknown[]).includes(decision))
  )
    throw refuse(`${where} needs decisions to be a non-empty array of 'approve', 'edit' and 'reject'`, decisions);
  if (description !== undefined && typeof description !== 'string') throw refuse(`${where} needs description to be a string`, description);
  return {
    when: when as NeedsApproval,
    decisions: Object.freeze(ALL_DECISIONS.filter((decision) => (decisions as readonly unknown[]).includes(decision))),
    ...(description === undefined ? {} : { description }),
  };
}
