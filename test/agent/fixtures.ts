/**
 * Messages, token counts, a collector and Wrap handlers shared by the agent tests.
 */
import type { WrapHandler } from '../../src/index';
import type { AgentEvent, Message } from '../../src/agent/index';

/** A user message with one text block. */
export const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

/** An assistant message with one text block. */
export const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });

/** The usage of a run whose model reported no token counts. */
export const ZERO = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/** Every event of an agent stream, in order. */
export async function collect(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const all: AgentEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/**
 * A Wrap handler that runs the inner chain again after an error, `attempts`
 * times in all, telling `onRetry` about each error it retries.
 */
export function retrying<TContext, TEvent>(attempts: number, onRetry: (error: Error) => void): WrapHandler<TContext, TEvent> {
  return async function* retry(_context, next) {
    for (let attempt = 1; ; attempt++) {
      try {
        yield* next();
        return;
      } catch (error) {
        if (attempt >= attempts) throw error;
        onRetry(error as Error);
      }
    }
  };
}

/**
 * A Wrap handler that runs two whole inner chains at once, pulled one event
 * each in turn (so their steps interleave deterministically), and keeps the
 * first to finish: it closes the other and delivers the winner's events.
 */
export function hedging<TContext>(onKept: (index: number) => void = () => undefined): WrapHandler<TContext, AgentEvent> {
  return async function* hedge(_context, next) {
    const attempts = [next(), next()];
    const buffered: AgentEvent[][] = [[], []];
    for (;;) {
      for (const [index, attempt] of attempts.entries()) {
        const pulled = await attempt.next();
        if (pulled.done === true) {
          onKept(index);
          await attempts[1 - index]?.return();
          yield* buffered[index] as AgentEvent[];
          return;
        }
        buffered[index]?.push(pulled.value);
      }
    }
  };
}
