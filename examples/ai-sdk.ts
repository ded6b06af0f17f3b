/**
 * An agent on the Vercel AI SDK: any provider's language model through
 * `fromAiSdk`, tools defined with zod, retry around the model stream. The
 * README's "Running on the Vercel AI SDK" shows this file from its first
 * import; `test/ai-sdk/readme-example.test.ts` runs it on `MockLanguageModelV3`.
 */
import { z } from 'zod';
import { MiddlewareRegistry } from '../src/core/index';
import { Agent, InvokeModelStage, defineTool } from '../src/agent/index';
import { fromAiSdk, type AiSdkLanguageModel } from '../src/ai-sdk/index';
import { retry } from '../src/middleware/index';

const weather = defineTool({
  name: 'weather',
  description: 'The weather in a city.',
  input: z.object({ city: z.string() }),
  run: ({ city }) => `Sunny in ${city}`, // city: string, validated before run is called
});

/** An agent on any AI SDK model: anthropic('claude-sonnet-4-5'), openai('gpt-4.1'), bedrock(...), ... */
export function weatherAgent(languageModel: AiSdkLanguageModel): Agent {
  const registry = new MiddlewareRegistry();
  // A provider's APICallError arrives as it is: retry reads its statusCode, isRetryable and Retry-After.
  registry.add(InvokeModelStage.Wrap, retry({ stream: 'live' }));
  const model = fromAiSdk(languageModel, { settings: { temperature: 0 } });
  return new Agent({ model, tools: [weather], registry, systemPrompt: 'You are terse.' });
}
