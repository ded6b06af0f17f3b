/**
 * The harness of the misuse tests: a fresh registry, stage and state binding
 * per test with an invoke that records every write, well-behaved terminal and
 * Wrap handler to misuse around, a capture of whatever an attempt ends in,
 * and the check every row of the misuse tables gets.
 */
import { expect } from 'vitest';
import { createStage, MiddlewareError, MiddlewareRegistry, type MiddlewareStage, type Next } from '../../src/core/index';
import { collect } from './fixtures';

/** The stage the misuses are tried on. */
export type Stage = MiddlewareStage<{ topic: string }, string, string>;

/** What each test gets: the registry, the stage, the state binding, its writes, a user error and an invoke. */
export interface Context {
  readonly registry: MiddlewareRegistry;
  readonly stage: Stage;
  readonly state: { get: () => { turns: number }; set: (next: { turns: number }) => void };
  readonly writes: unknown[];
  readonly userError: Error;
  readonly invoke: (terminal?: unknown, options?: Record<string, unknown>) => AsyncGenerator<string, void, undefined>;
}

/** A fresh registry, stage and state binding. */
export function context(stage: Stage = createStage<{ topic: string }, string, string>('misuse')): Context {
  const registry = new MiddlewareRegistry({ onWarning: () => undefined });
  const writes: unknown[] = [];
  const state = { get: () => ({ turns: 0 }), set: (next: { turns: number }) => void writes.push(next) };
  const invoke = (terminal: unknown = good, options: Record<string, unknown> = {}) =>
    registry.invoke(stage, { topic: 'x' }, terminal as never, { state, ...options });
  return { registry, stage, state, writes, userError: new Error('user code failed'), invoke };
}

/** A terminal that behaves. */
export async function* good(): AsyncGenerator<string, void, undefined> {
  yield 'partial';
  yield 'done';
}

/** A Wrap handler that behaves. */
export const pass = async function* pass(_context: unknown, next: Next<unknown, string>) {
  yield* next();
};

/** Runs an attempt to its end: a thrown error, a rejection, or the error of draining the generator it returns. */
export async function capture(attempt: () => unknown): Promise<unknown> {
  try {
    const produced = attempt();
    if (typeof produced === 'object' && produced !== null && Symbol.asyncIterator in produced) {
      const outcome = await collect(produced as AsyncIterable<unknown>);
      return outcome.error;
    }
    await produced;
    return undefined;
  } catch (error) {
    return error;
  }
}

/** One misuse of the table. */
export interface Row {
  readonly label: string;
  readonly setup?: (context: Context) => void;
  readonly attempt: (context: Context) => unknown;
  /** A MiddlewareError code and the handler it must name, or the user's error. */
  readonly expected: { readonly code: string; readonly handler: string | undefined } | 'user error';
  /** What the message must contain when it is not the stage and handler names. */
  readonly message?: readonly string[];
  /** The error's stage field when it is not the stage under test. */
  readonly stage?: string | undefined;
}

/**
 * Tries the misuse of `row` on a fresh setup: it ends in the MiddlewareError
 * the row expects, naming the stage and the handler, or in the user's own
 * error object unchanged, and writes nothing.
 */
export async function expectMisuse(row: Row): Promise<void> {
  const setup = context();
  row.setup?.(setup);
  const before = setup.registry.describe(setup.stage);
  const error = await capture(() => row.attempt(setup));
  if (row.expected === 'user error') {
    expect(error).toBe(setup.userError);
  } else {
    expect(MiddlewareError.isInstance(error)).toBe(true);
    const failure = error as MiddlewareError;
    expect({ code: failure.code, handler: failure.handler }).toEqual(row.expected);
    // The message says where: the stage (when one is involved) and the handler.
    const wanted = row.message ?? [
      ...(failure.code === 'ERR_UNKNOWN_PHASE' ? ['createStage()'] : ['"misuse"']),
      ...(row.expected.handler === undefined ? [] : row.expected.handler === 'terminal' ? ['terminal'] : [`"${row.expected.handler}"`]),
    ];
    for (const part of wanted) expect(failure.message).toContain(part);
    expect(failure.stage).toBe('stage' in row ? row.stage : failure.code === 'ERR_UNKNOWN_PHASE' ? undefined : 'misuse');
  }
  // Nothing was written: no state, no registration.
  expect({ writes: setup.writes, chain: setup.registry.describe(setup.stage) }).toEqual({ writes: [], chain: before });
}
