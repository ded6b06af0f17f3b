/** The terminal, traced Wrap handler and chain picture the tests of MiddlewareRegistry share. */
import type { MiddlewareRegistry, Terminal, WrapHandler } from '../../src/index';
import { ModelStage as Stage, type PromptContext as Context } from '../fixtures';

/** A terminal that replies to the prompt. */
export const reply: Terminal<Context, string> = async function* terminal(context) {
  yield `reply to ${context.prompt}`;
};

/** A Wrap handler that records `<name>:enter` before its inner chain and `<name>:exit` after it. */
export function tracing(trace: string[], name: string): WrapHandler<Context, string> {
  return async function* traced(_context, next) {
    trace.push(`${name}:enter`);
    yield* next();
    trace.push(`${name}:exit`);
  };
}

/** The resolved chain of `stage` as `phase:name` lines. */
export const shape = (registry: MiddlewareRegistry, stage = Stage): string[] =>
  registry.describe(stage).map((entry) => `${entry.phase}:${entry.name}`);
