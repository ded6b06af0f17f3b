/**
 * Capturing what a call threw or a stream delivered, for the core tests to
 * assert on whole values.
 */
import { expect } from 'vitest';
import { MiddlewareError } from '../src/core/index';

/** The error `promise` rejects with; fails the test when it resolves. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

/** The `MiddlewareError` `action` throws synchronously; other errors pass through, and nothing thrown fails the test. */
export function caught(action: () => unknown): MiddlewareError {
  try {
    action();
  } catch (error) {
    if (MiddlewareError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a MiddlewareError, but nothing was thrown');
}

/** The identifying fields of a `MiddlewareError`, after checking that it is one. */
export function fields(error: unknown): Record<string, unknown> {
  expect(MiddlewareError.isInstance(error)).toBe(true);
  const { code, stage, phase, handler } = error as MiddlewareError;
  return { code, stage, phase, handler };
}

/** Every event of `events`, in order. */
export async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/** The events a generator yields and the value it returns. */
export async function drain<TEvent, TReturn>(generator: AsyncGenerator<TEvent, TReturn>): Promise<{ events: TEvent[]; value: TReturn }> {
  const events: TEvent[] = [];
  for (;;) {
    const step = await generator.next();
    if (step.done === true) return { events, value: step.value };
    events.push(step.value);
  }
}

/** A promise with its resolve function, for tests that control when something happens. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
