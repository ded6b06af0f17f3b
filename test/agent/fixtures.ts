/**
 * Messages, token counts, a collector and Wrap handlers shared by the agent tests.
 */
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

/** The retrying and hedging Wrap handlers of the agent cases' vocabulary, shared with the other agent tests. */
export { hedging, retrying } from '../../conformance/agent/vocabulary';
