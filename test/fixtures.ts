/**
 * Stages, terminals and Wrap handlers shared by the core tests. Every test
 * file gets its own module instance, so sharing a stage token across files
 * shares nothing at run time.
 */
import { createStage, type Terminal, type WrapHandler } from '../src/core/index';

/** The context of the plain test stages: one prompt. */
export interface PromptContext {
  readonly prompt: string;
}

/** A stage named `model` whose events and result are strings. */
export const ModelStage = createStage<PromptContext, string>('model');

/** A second stage, for checks that handlers stay on the stage they target. */
export const OtherStage = createStage<PromptContext, string>('other');

/** A terminal that yields the prompt as its only event. */
export const echo: Terminal<PromptContext, string> = async function* terminal(context) {
  yield context.prompt;
};

/** A Wrap handler that forwards the inner events unchanged. */
export const passThrough: WrapHandler<PromptContext, string> = async function* passThrough(_context, next) {
  yield* next();
};

/** A Wrap handler that records `<name>:enter`, `<name>:exit` (on normal completion) and `<name>:finally`. */
export function tracing(trace: string[], name: string): WrapHandler<PromptContext, string> {
  return async function* traced(_context, next) {
    trace.push(`${name}:enter`);
    try {
      yield* next();
      trace.push(`${name}:exit`);
    } finally {
      trace.push(`${name}:finally`);
    }
  };
}
