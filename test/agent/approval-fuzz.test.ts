import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { ALL_DECISIONS, readApprovalDecision } from '../../src/agent/tools/approval';

/** What reading `response` gives: the decision, or the code of the error it throws. */
function outcome(response: unknown): { readonly decision: unknown } | { readonly code: string } {
  try {
    return { decision: readApprovalDecision(response, ALL_DECISIONS, 'the answer') };
  } catch (error) {
    return { code: MiddlewareError.isInstance(error) ? error.code : `not a MiddlewareError: ${String(error)}` };
  }
}

/** Whether `response` is a decision MW-287 accepts. */
function isDecision(response: unknown): boolean {
  if (typeof response !== 'object' || response === null || Array.isArray(response)) return false;
  const { decision, message } = response as { decision?: unknown; message?: unknown };
  if (decision === 'approve') return true;
  if (decision === 'edit') return 'input' in response;
  return decision === 'reject' && (message === undefined || typeof message === 'string');
}

const answers = fc.oneof(
  fc.jsonValue(),
  fc.record(
    { decision: fc.constantFrom('approve', 'edit', 'reject', 'Approve', ''), input: fc.jsonValue(), message: fc.jsonValue() },
    { requiredKeys: ['decision'] },
  ),
);

describe('readApprovalDecision', () => {
  describe('any JSON answer, as a resume or a snapshot brings it', () => {
    it('returns an equal frozen copy of a decision, and refuses anything else with ERR_INVALID_OPTIONS', () => {
      fc.assert(
        fc.property(answers, (response) => {
          const read = outcome(response);
          if (isDecision(response)) {
            expect(read).toEqual({ decision: response });
            expect(Object.isFrozen((read as { decision: unknown }).decision)).toEqual(true);
          } else expect(read).toEqual({ code: 'ERR_INVALID_OPTIONS' });
        }),
      );
    });
  });

  describe('an edit whose input has __proto__ as a key', () => {
    it('keeps it as an ordinary own key of the copy', () => {
      const response = JSON.parse('{ "decision": "edit", "input": { "__proto__": { "admin": true }, "to": "ada" } }') as unknown;
      const read = readApprovalDecision(response, ALL_DECISIONS, 'the answer') as { input: object };
      expect([
        Object.keys(read.input),
        Object.getPrototypeOf(read.input) === Object.prototype,
        (read.input as { admin?: unknown }).admin,
      ]).toEqual([['__proto__', 'to'], true, undefined]);
    });
  });

  describe('a decision the question does not allow', () => {
    it('is refused with ERR_INVALID_OPTIONS on the stage given', () => {
      expect(outcome({ decision: 'edit', input: {} })).toEqual({ decision: { decision: 'edit', input: {} } });
      expect(() => readApprovalDecision({ decision: 'edit', input: {} }, ['approve', 'reject'], 'the answer', 'agentStream')).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'agentStream' }),
      );
    });
  });
});
