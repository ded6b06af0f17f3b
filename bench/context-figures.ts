/**
 * Figures over the agent kit: building an InvokeModelStage context from the
 * conversation history, which an agent does once per model call.
 */
import type { History, Message, Model, ToolSpec } from '../src/agent/index';
import type { Figure } from './figures';
import { agentKit } from './library';

const { createModelContext } = agentKit;

const LARGE_HISTORY = 10_000;
const SMALL_HISTORY = 10;

/** A history of `count` alternating user and assistant text messages. */
export function history(count: number): History {
  const messages: Message[] = Array.from({ length: count }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [{ type: 'text', text: `message ${index}: ${'lorem ipsum '.repeat(4)}` }],
  }));
  return new agentKit.History(messages);
}

/** The model is never called here; the context only carries it. */
const MODEL: Model = {
  stream() {
    throw new Error('The benchmark builds contexts only; it never calls the model.');
  },
};

/** The tool specs every context carries. */
export const TOOL_SPECS: readonly ToolSpec[] = Object.freeze([
  Object.freeze({ name: 'search', description: 'Searches the web.', inputSchema: Object.freeze({ type: 'object' }) }),
]);

/** The system prompt every context carries. */
export const SYSTEM_PROMPT = 'You are a helpful assistant.';

/** One context build, as the agent does it before each model call. */
export function buildContext(source: History): () => unknown {
  const invocationState = {};
  return () =>
    createModelContext({
      model: MODEL,
      messages: source.messages,
      systemPrompt: SYSTEM_PROMPT,
      toolSpecs: TOOL_SPECS,
      invocationState,
    });
}

const contextScaling: Figure = {
  name: 'context_scaling',
  measures: 'building an `InvokeModelStage` context from 10,000 messages',
  baseline: `building the same context from a ${SMALL_HISTORY}-message history (ours: ${LARGE_HISTORY} messages)`,
  goal: 2,
  setup() {
    return {
      ours: buildContext(history(LARGE_HISTORY)),
      baseline: buildContext(history(SMALL_HISTORY)),
      detail: { messages: LARGE_HISTORY, baselineMessages: SMALL_HISTORY },
    };
  },
};

const contextVsClone: Figure = {
  name: 'context_vs_clone',
  measures: 'the same context build',
  baseline: `structuredClone of the same ${LARGE_HISTORY}-message history (one per context)`,
  goal: 0.01,
  rounds: 21,
  setup() {
    const source = history(LARGE_HISTORY);
    return {
      ours: buildContext(source),
      baseline: () => structuredClone(source.messages),
      detail: { messages: LARGE_HISTORY },
    };
  },
};

/** Figures over the agent kit's model-context builder. */
export const contextFigures: readonly Figure[] = [contextScaling, contextVsClone];
