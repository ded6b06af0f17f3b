/**
 * The harness of the misuse tests: a fresh registry, stage and state binding
 * per test with an invoke that records every write, well-behaved terminal and
 * Wrap handler to misuse around, and a capture of whatever an attempt ends in.
 */
import { createStage, MiddlewareRegistry, type MiddlewareStage, type Next } from '../../src/index';
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
    registry.invoke(stage, { topic: 'x' }, terminal as never, { state, ...options } as never);
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
