/**
 * Errors as answers: a policy that turns what a guard throws into the tool's
 * answer (or the model's reply), so the run goes on. Shown in docs/agent-kit.md,
 * "Errors as answers".
 */
import { MiddlewareRegistry } from '../src/core/index';
import { ExecuteToolStage, InvokeModelStage, errorsAsAnswers, modelErrorAnswer, toolErrorAnswer } from '../src/agent/index';

/** An error no policy may turn into an answer. */
export class AccountFrozen extends Error {}

/** Magma's failure rules as a policy, and a tool guard that only throws. */
export function answerErrors(registry: MiddlewareRegistry): void {
  const critical = (error: unknown): boolean => error instanceof AccountFrozen;
  // Outermost (a low order): it answers for every handler inside it, and for a result one of them drops.
  registry.add(ExecuteToolStage.Wrap, errorsAsAnswers({ toResult: toolErrorAnswer, critical }), { order: -100 });
  registry.add(InvokeModelStage.Wrap, errorsAsAnswers({ toResult: modelErrorAnswer, critical }), { order: -100 });
  // The model reads 'Tool "refund" failed: Refunds over 100 EUR need a manager.' and tries something else.
  registry.add(ExecuteToolStage.Wrap, async function* refundLimit(context, next) {
    const { amount } = context.toolUse.input as { amount?: number };
    if (context.toolUse.name === 'refund' && (amount ?? 0) > 100) throw new Error('Refunds over 100 EUR need a manager.');
    yield* next();
  });
}
