/**
 * Figures over long conversations through the reference agent, as a server
 * that keeps the conversation itself runs it: each request builds an `Agent`
 * from the stored conversation, runs it once (a tool call and an answer) and
 * reads the conversation back to store it. The stored conversation comes from
 * the package itself: an earlier agent's `messages`, the snapshot it wrote, or
 * a `History`. Each figure divides a request after 10,000 earlier messages by
 * the same request after 10.
 */
import type { AgentOptions, Message, Model, Tool } from '../src/agent/index';
import type { AiSdkLanguageModel } from '../src/ai-sdk/index';
import type { Figure } from './figures';
import type { Operation } from './harness';
import { agentKit, aiSdk, testingKit } from './library';

const { Agent, History } = agentKit;
const { ScriptedModel, textTurn, toolUseTurn } = testingKit;
const { fromAiSdk } = aiSdk;

const LONG = 10_000;
const SHORT = 10;

/** `count` earlier messages, alternating user and assistant text, as a caller would hold them (plain, not frozen). */
function earlierMessages(count: number): Message[] {
  return Array.from({ length: count }, (_, index) => ({
    role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: [{ type: 'text' as const, text: `message ${index}: ${'lorem ipsum '.repeat(4)}` }],
  }));
}

const TOOLS: readonly Tool[] = [
  {
    spec: Object.freeze({ name: 'lookup_order', description: 'Looks an order up.', inputSchema: Object.freeze({ type: 'object' }) }),
    run: async () => 'shipped on Monday',
  },
];

const PROMPT = 'Where is order A-1042?';

/** A request's model: the scripted model of the test kit, or `fromAiSdk` over a provider that answers from memory. */
type ModelKind = 'scripted' | 'aiSdk';

/** Where the stored conversation comes from. */
type Source = 'messages' | 'snapshot' | 'history';

/** The stream parts of an AI SDK provider's response (specification version 3). */
const TOOL_CALL_PARTS: readonly unknown[] = Object.freeze([
  Object.freeze({ type: 'stream-start', warnings: Object.freeze([]) }),
  Object.freeze({ type: 'tool-call', toolCallId: 'call-1', toolName: 'lookup_order', input: '{"id":"A-1042"}' }),
  Object.freeze({
    type: 'finish',
    finishReason: Object.freeze({ unified: 'tool-calls', raw: 'tool_use' }),
    usage: Object.freeze({ inputTokens: Object.freeze({ total: 12 }), outputTokens: Object.freeze({ total: 6 }) }),
  }),
]);

const ANSWER_PARTS: readonly unknown[] = Object.freeze([
  Object.freeze({ type: 'stream-start', warnings: Object.freeze([]) }),
  Object.freeze({ type: 'text-start', id: 'text-1' }),
  Object.freeze({ type: 'text-delta', id: 'text-1', delta: 'Shipped on Monday.' }),
  Object.freeze({ type: 'text-end', id: 'text-1' }),
  Object.freeze({
    type: 'finish',
    finishReason: Object.freeze({ unified: 'stop', raw: 'end_turn' }),
    usage: Object.freeze({ inputTokens: Object.freeze({ total: 20 }), outputTokens: Object.freeze({ total: 4 }) }),
  }),
]);

/** A web stream of `parts`, each handed out when it is pulled, as a provider's parsed response is. */
export function partStream(parts: readonly unknown[]): ReadableStream<unknown> {
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      if (index < parts.length) controller.enqueue(parts[index++]);
      else controller.close();
    },
  });
}

/** A provider's model answering from memory: every other call asks for the tool, the others answer. */
function providerModel(): AiSdkLanguageModel {
  let calls = 0;
  return {
    specificationVersion: 'v3',
    provider: 'bench.memory',
    modelId: 'scripted',
    doStream: async () => ({ stream: partStream(calls++ % 2 === 0 ? TOOL_CALL_PARTS : ANSWER_PARTS) }),
  };
}

/** A factory of each request's model: a fresh scripted model, or one adapter shared by every request, as a server has. */
function modelsOf(kind: ModelKind): () => Model {
  if (kind === 'scripted')
    return () => new ScriptedModel([toolUseTurn([{ name: 'lookup_order', input: { id: 'A-1042' } }]), textTurn('Shipped on Monday.')]);
  const shared = fromAiSdk(providerModel());
  return () => shared;
}

/** One request over a stored conversation of `count` earlier messages from `source`. */
async function request(count: number, source: Source, kind: ModelKind): Promise<Operation> {
  // The earlier conversation as the package left it: an agent started from a caller's messages, run once.
  const earlier = new Agent({ model: new ScriptedModel([textTurn('Earlier answer.')]), messages: earlierMessages(count - 2) });
  await earlier.invoke('Earlier question.');
  const history = new History(earlierMessages(count));
  const stored: Partial<AgentOptions> =
    source === 'messages'
      ? { messages: earlier.messages }
      : source === 'snapshot'
        ? { snapshot: earlier.snapshot() }
        : { messages: history.messages };
  const model = modelsOf(kind);
  return async () => {
    const agent = new Agent({ model: model(), tools: TOOLS, ...stored });
    await agent.invoke(PROMPT);
    return agent.messages;
  };
}

const SOURCES: Readonly<Record<Source, string>> = {
  messages: "an earlier agent's `messages`",
  snapshot: 'the snapshot an earlier agent wrote',
  history: "a `History` built from a caller's messages (checked by the first request, trusted after)",
};

function historyFigure(name: string, source: Source, kind: ModelKind): Figure {
  const model = kind === 'scripted' ? 'the scripted model' : '`fromAiSdk` over a provider answering from memory';
  return {
    name,
    measures: `a request after ${LONG.toLocaleString('en')} earlier messages from ${SOURCES[source]}: \`new Agent()\` from them, a run with ${model} (a tool call and an answer), \`agent.messages\` read back`,
    baseline: `the same request after ${SHORT} earlier messages (ours: ${LONG.toLocaleString('en')})`,
    goal: 1.5,
    rounds: 51,
    async setup(quick) {
      const long = quick ? 200 : LONG;
      return {
        ours: await request(long, source, kind),
        baseline: await request(SHORT, source, kind),
        detail: { messages: long, baselineMessages: SHORT, source, model: kind },
      };
    },
  };
}

/** Figures over long conversations through the reference agent. */
export const historyFigures: readonly Figure[] = [
  historyFigure('history_messages', 'messages', 'scripted'),
  historyFigure('history_snapshot', 'snapshot', 'scripted'),
  historyFigure('history_history', 'history', 'scripted'),
  historyFigure('history_ai_sdk', 'messages', 'aiSdk'),
];
