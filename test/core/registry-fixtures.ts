/** The terminal, Wrap handlers, counting registry and chain pictures the tests of MiddlewareRegistry share. */
import { MiddlewareRegistry, type MiddlewareWarning, type Terminal, type WrapHandler } from '../../src/core/index';
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

/** A new pass-through Wrap handler: a function of its own each call, so registrations of it are told apart. */
export function pass(): WrapHandler<Context, string> {
  return async function* passing(_context, next) {
    yield* next();
  };
}

/**
 * A registry whose Stage chain warns once per resolution (its one handler names an id no one has), with the warnings
 * it reported: the chain cache's tests count resolutions with it.
 */
export function counting(): { registry: MiddlewareRegistry; warnings: MiddlewareWarning[] } {
  const warnings: MiddlewareWarning[] = [];
  const registry = new MiddlewareRegistry({ onWarning: (warning) => warnings.push(warning) });
  registry.add(Stage.Wrap, pass(), { name: 'constrained', after: ['nowhere'] });
  return { registry, warnings };
}

/** The names of the resolved chain of Stage, outermost first. */
export const names = (registry: MiddlewareRegistry): string[] => registry.describe(Stage).map((entry) => entry.name);
