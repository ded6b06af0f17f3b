/**
 * Human approval of the AI SDK's tool calls (MW-307): the `approval` option of
 * `wrapAiSdkTools` becomes the AI SDK's own `needsApproval`, the one place
 * its loop asks (before `execute`, with a `tool-approval-request` part, the
 * answer coming back as a `tool-approval-response`). The AI SDK's answer
 * approves or denies: the package's `edit` decision and a description for
 * the human have no place in it, so a rule asking for either is refused.
 */
import type { ApprovalDecisionType, NeedsApproval } from '../agent/index';
import { readApprovalRule } from '../agent/middleware/approval-policy';
import { needsApproval } from '../agent/tools/approval';
import { describeValue } from '../util/describe-value';
import { isObject } from '../util/is-object';
import { ownEntry } from '../util/own-entry';
import { approvalNotBoolean, invalidMiddlewareOptions } from './errors';

const HANDLER = 'wrapAiSdkTools';

/** What `approval` says about one tool: `true` (every call), `false` (none), a predicate, or a rule `{ when? }`. */
export type AiSdkToolApprovalRule = NeedsApproval | { readonly when?: NeedsApproval; readonly decisions?: readonly ApprovalDecisionType[] };

/** The `approval` option of `wrapAiSdkTools`: by tool name, as `approvalPolicy` takes it, within what the AI SDK can ask. */
export type AiSdkToolApproval = Readonly<Record<string, AiSdkToolApprovalRule>>;

/** The AI SDK's `needsApproval` of a wrapped tool: a boolean, or a predicate of the input and the call's options. */
export type AiSdkNeedsApproval = boolean | ((input: unknown, options: { readonly toolCallId: string }) => Promise<boolean>);

/**
 * The `when` of each tool `approval` names, checked now: every name a tool
 * that runs (`running` finds it) and has no `needsApproval` of its own, every
 * rule as `approvalPolicy` reads it and within what the AI SDK's approval can express.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`phase: 'register'`, `handler: 'wrapAiSdkTools'`) otherwise.
 */
export function readApproval(
  approval: unknown,
  running: (name: string) => { readonly needsApproval?: unknown } | undefined,
): ReadonlyMap<string, NeedsApproval> {
  if (!isObject(approval) || Array.isArray(approval))
    throw invalidMiddlewareOptions(
      `options.approval must be an object { [toolName]: true | false | (input, context) => boolean | { when? } }, got ${describeValue(approval)}`,
      HANDLER,
    );
  const rules = new Map<string, NeedsApproval>();
  for (const name of Object.keys(approval)) {
    const where = `options.approval["${name}"]`;
    const tool = running(name);
    if (tool === undefined)
      throw invalidMiddlewareOptions(`${where} names no tool of the tool set that has an execute function to approve`, HANDLER);
    if (tool.needsApproval !== undefined)
      throw invalidMiddlewareOptions(
        `${where} is given, but the tool "${name}" has a needsApproval of its own: say when it needs approval in one place, the tool or options.approval`,
        HANDLER,
      );
    rules.set(name, ruleWhen(ownEntry(approval, name), where));
  }
  return rules;
}

/**
 * The `when` of one rule as `approvalPolicy` reads it, refusing first what the AI SDK's approval cannot
 * express (stricter than the policy, so the policy's reading refuses no decisions or description after it).
 */
function ruleWhen(entry: unknown, where: string): NeedsApproval {
  if (isObject(entry) && !Array.isArray(entry)) {
    const { decisions, description } = entry as { decisions?: unknown; description?: unknown };
    if (decisions !== undefined && !approveOrReject(decisions))
      throw invalidMiddlewareOptions(
        `${where}.decisions must be ['approve', 'reject'] or left out, got ${describeValue(decisions)}: the AI SDK's approval answer approves or denies a call, so an edit of its input (or a question without one of the two) cannot be expressed`,
        HANDLER,
      );
    if (description !== undefined)
      throw invalidMiddlewareOptions(
        `${where}.description cannot be expressed: the AI SDK's tool-approval-request carries the tool call, and no text for the human; leave it out and show your own text beside the request`,
        HANDLER,
      );
  }
  const refuse = (problem: string, value: unknown): Error => invalidMiddlewareOptions(`${problem}, got ${describeValue(value)}`, HANDLER);
  return readApprovalRule(entry, where, refuse, '{ when? }').when;
}

/** Whether `decisions` is exactly approve and reject, in any order. */
function approveOrReject(decisions: unknown): boolean {
  return (
    Array.isArray(decisions) &&
    decisions.length === 2 &&
    (decisions as unknown[]).includes('approve') &&
    (decisions as unknown[]).includes('reject')
  );
}

/**
 * The AI SDK's `needsApproval` for a tool whose approval says `when`: the
 * boolean as it is, a predicate asked with the call's tool use and invocation state.
 */
export function aiSdkNeedsApproval(name: string, when: NeedsApproval, invocationState: () => Record<string, unknown>): AiSdkNeedsApproval {
  if (typeof when === 'boolean') return when;
  return (input, options) => asks(name, when, input, options.toolCallId, invocationState());
}

/**
 * Whether `when` asks for the call of tool `name` with `input` (MW-307), as a tool's own `needsApproval` would.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `executeTool`, `handler: 'wrapAiSdkTools'`) when a predicate
 *   answers anything but a boolean; what the predicate throws passes through unchanged.
 */
export function asks(
  name: string,
  when: NeedsApproval,
  input: unknown,
  toolCallId: string,
  invocationState: Record<string, unknown>,
): Promise<boolean> {
  return needsApproval({ toolUse: Object.freeze({ name, toolUseId: toolCallId, input }), invocationState }, when, (answer) =>
    approvalNotBoolean(name, answer),
  );
}
