/**
 * A figure over the AI SDK adapter: what `fromAiSdk` adds to each stream part
 * of a provider's response, against reading the provider's stream directly.
 */
import type { ModelRequest } from '../src/agent/index';
import type { AiSdkLanguageModel } from '../src/ai-sdk/index';
import type { Figure } from './figures';
import { partStream } from './history-figures';
import { aiSdk } from './library';

const { fromAiSdk } = aiSdk;

const PARTS = 1000;

/** A response of 1,000 parts: the stream's start, a text of 996 deltas, its end, and the finish. */
const RESPONSE: readonly unknown[] = Object.freeze([
  Object.freeze({ type: 'stream-start', warnings: Object.freeze([]) }),
  Object.freeze({ type: 'text-start', id: 'text-1' }),
  ...Array.from({ length: PARTS - 4 }, (_, index) => Object.freeze({ type: 'text-delta', id: 'text-1', delta: `word${index} ` })),
  Object.freeze({ type: 'text-end', id: 'text-1' }),
  Object.freeze({
    type: 'finish',
    finishReason: Object.freeze({ unified: 'stop', raw: 'end_turn' }),
    usage: Object.freeze({ inputTokens: Object.freeze({ total: 12 }), outputTokens: Object.freeze({ total: 996 }) }),
  }),
]);

/** A provider's model answering every call with {@link RESPONSE} from memory. */
const PROVIDER: AiSdkLanguageModel = {
  specificationVersion: 'v3',
  provider: 'bench.memory',
  modelId: 'parts',
  doStream: async () => ({ stream: partStream(RESPONSE) }),
};

const REQUEST: ModelRequest = Object.freeze({
  messages: Object.freeze([
    Object.freeze({ role: 'user' as const, content: Object.freeze([Object.freeze({ type: 'text' as const, text: 'Hi' })]) }),
  ]),
  systemPrompt: 'Be brief.',
  systemBlocks: Object.freeze([Object.freeze({ text: 'Be brief.' })]),
  toolSpecs: Object.freeze([]),
  toolChoice: undefined,
});

const adapterPerPart: Figure = {
  name: 'ai_sdk_per_part',
  measures: '`fromAiSdk` streaming a 1,000-part response (996 text deltas) as model stream events, drained with `for await`',
  baseline: "the provider's `doStream` called with the same prompt and its stream read directly, part by part",
  goal: 1.5,
  setup() {
    const adapter = fromAiSdk(PROVIDER);
    const signal = new AbortController().signal;
    const options = Object.freeze({ signal, state: {} });
    return {
      ours: async () => {
        let last: unknown;
        for await (const event of adapter.stream(REQUEST, options)) last = event;
        return last;
      },
      baseline: async () => {
        const { stream } = await PROVIDER.doStream({
          prompt: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
          ],
          abortSignal: signal,
        });
        const reader = stream.getReader();
        let last: unknown;
        for (;;) {
          const read = await reader.read();
          if (read.done) break;
          last = read.value;
        }
        reader.releaseLock();
        return last;
      },
      perItem: PARTS,
      detail: { parts: PARTS, textDeltas: PARTS - 4 },
    };
  },
};

/** Figures over the AI SDK adapter. */
export const aiSdkFigures: readonly Figure[] = [adapterPerPart];
