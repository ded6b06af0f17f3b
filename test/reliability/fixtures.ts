/**
 * Small building blocks of the reliability tests: a stage, traced layers and
 * terminals, a collector that turns an invoke into plain data, and the check
 * of an abort error.
 */
import { getEventListeners } from 'node:events';
import { expect } from 'vitest';
import { createStage, MiddlewareError, MiddlewareResult, type MiddlewareStage, type StateBinding } from '../../src/core/index';

/** Events of the test stages: deltas stream through, results end a stream. */
export type TestEvent = { readonly type: 'delta'; readonly text: string } | { readonly type: 'result'; readonly text: string };

/** A stage with a result guard, like a model call. */
export function modelStage(name = 'invokeModel'): MiddlewareStage<string, Extract<TestEvent, { type: 'result' }>, TestEvent> {
  return createStage<string, Extract<TestEvent, { type: 'result' }>, TestEvent>(name, {
    isResult: (event): event is Extract<TestEvent, { type: 'result' }> => event.type === 'result',
  });
}

/** A delta event. */
export const delta = (text: string): TestEvent => ({ type: 'delta', text });
/** A result event. */
export const result = (text: string): TestEvent => ({ type: 'result', text });

/** A Wrap handler that records entry and its `finally` into `trace`. */
export function tracedLayer(label: string, trace: string[]) {
  return async function* layer(_context: string, next: (context?: string) => AsyncGenerator<TestEvent, void, undefined>) {
    trace.push(`${label}:enter`);
    try {
      yield* next();
    } finally {
      trace.push(`${label}:finally`);
    }
  };
}

/** A terminal that yields `deltas` deltas then a result, recording entry and `finally`. */
export function tracedTerminal(trace: string[], deltas = 3) {
  return async function* terminal(context: string): AsyncGenerator<TestEvent, void, undefined> {
    trace.push('terminal:enter');
    try {
      for (let index = 0; index < deltas; index++) yield delta(`${context}${index}`);
      yield result(`${context}!`);
    } finally {
      trace.push('terminal:finally');
    }
  };
}

/** An event or error as the consumer saw it. */
export interface Collected<TEvent> {
  readonly events: TEvent[];
  readonly error: unknown;
}

/** Drains an invoke, keeping the events and the error (if any). */
export async function collect<TEvent>(events: AsyncIterable<TEvent>): Promise<Collected<TEvent>> {
  const seen: TEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
    return { events: seen, error: undefined };
  } catch (error) {
    return { events: seen, error };
  }
}

/** A state binding that records every write. */
export function recordingState<TState>(initial: TState): StateBinding<TState> & { writes: TState[] } {
  const writes: TState[] = [];
  return {
    writes,
    get: () => initial,
    set: (next) => {
      writes.push(next);
    },
  };
}

/** Number of `abort` listeners on a signal. */
export function abortListeners(signal: AbortSignal): number {
  return getEventListeners(signal, 'abort').length;
}

/** A promise and its resolver, for gating handlers from the test. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** An Output handler that appends a marker to the result text. */
export function appendOutput(marker: string, trace?: string[]) {
  return function append(outcome: MiddlewareResult<Extract<TestEvent, { type: 'result' }>>) {
    trace?.push(`output:${marker}`);
    return outcome.replace({ type: 'result', text: `${outcome.value.text}${marker}` });
  };
}

/** Checks the consumer got ERR_ABORTED with the signal's reason as cause. */
export function expectAborted(error: unknown, reason: unknown): void {
  expect(MiddlewareError.isInstance(error)).toBe(true);
  expect((error as MiddlewareError).code).toBe('ERR_ABORTED');
  expect((error as MiddlewareError).cause).toBe(reason);
  expect((error as MiddlewareError).stage).toBe('invokeModel');
}
