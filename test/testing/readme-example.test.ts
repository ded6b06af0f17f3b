/**
 * The README's "a middleware and its test in under 30 lines", with the
 * package imports pointed at the sources, so the example stays true.
 */
import { describe, expect, it } from 'vitest';
import { createStage, type WrapHandler } from '../../src/core/index';
import { runStage, scriptedTerminal, throws } from '../../src/testing/index';

const AskStage = createStage<{ question: string }, string>('ask');

/** Answers "I don't know" instead of failing. */
const shrug: WrapHandler<{ question: string }, string> = async function* shrug(context, next) {
  try {
    yield* next(context);
  } catch {
    yield "I don't know";
  }
};

describe('shrug', () => {
  it('answers instead of failing', async () => {
    const terminal = scriptedTerminal([[throws(new Error('model down'))]]);
    const run = await runStage(AskStage, { context: { question: 'why?' }, terminal, handlers: [[AskStage.Wrap, shrug]] });
    expect([run.result, run.error, run.calls.shrug?.nextCalls, run.calls.shrug?.finallyRan]).toEqual(["I don't know", undefined, 1, true]);
  });
});
