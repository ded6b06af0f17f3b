/**
 * The registry inside the AI SDK's own loop: `streamText` keeps its loop, and
 * every model call it makes runs the registry's InvokeModelStage handlers
 * through `wrapLanguageModel`.
 */
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { z } from 'zod';
import { MiddlewareRegistry } from '../src/core/index';
import { InvokeModelStage } from '../src/agent/index';
import { languageModelMiddleware } from '../src/ai-sdk/index';
import { retry } from '../src/middleware/index';

const weather = tool({
  description: 'The weather in a city.',
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }) => `Sunny in ${city}`,
});

/** streamText on any AI SDK model (openai('gpt-4.1'), ...), a retry around each of its model calls. */
export function weatherStream(provider: LanguageModelV3, city: string): ReturnType<typeof streamText<{ weather: typeof weather }>> {
  const registry = new MiddlewareRegistry();
  // The default, 'commit', holds an attempt's chunks until it succeeds: a retried stream has no duplicated chunk.
  registry.add(InvokeModelStage.Wrap, retry({ attempts: 3 }));
  const model = wrapLanguageModel({ model: provider, middleware: languageModelMiddleware(registry) });
  return streamText({ model, prompt: `Weather in ${city}?`, tools: { weather }, stopWhen: stepCountIs(3) });
}
