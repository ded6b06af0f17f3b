/**
 * The registry inside the AI SDK's own loop: `streamText` keeps its loop;
 * every model call it makes runs the registry's InvokeModelStage handlers
 * through `wrapLanguageModel`, and every tool call its ExecuteToolStage
 * handlers through `wrapAiSdkTools`.
 */
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { z } from 'zod';
import { MiddlewareRegistry } from '../src/core/index';
import { ExecuteToolStage, InvokeModelStage } from '../src/agent/index';
import { languageModelMiddleware, wrapAiSdkTools } from '../src/ai-sdk/index';
import { retry, timeout } from '../src/middleware/index';

const weather = tool({
  description: 'The weather in a city.',
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }) => `Sunny in ${city}`,
});

/** streamText on any AI SDK model (openai('gpt-4.1'), ...): a retry around each model call, a timeout and a retry around each tool call. */
export function weatherStream(provider: LanguageModelV3, city: string): ReturnType<typeof streamText<{ weather: typeof weather }>> {
  const registry = new MiddlewareRegistry();
  // The default, 'commit', holds an attempt's chunks until it succeeds: a retried stream has no duplicated chunk.
  registry.add(InvokeModelStage.Wrap, retry({ attempts: 3 }));
  // A tool that throws or runs out of time is called again; the AI SDK's abort signal reaches it.
  registry.add(ExecuteToolStage.Wrap, retry({ attempts: 2 }));
  registry.add(ExecuteToolStage.Wrap, timeout(10_000));
  const model = wrapLanguageModel({ model: provider, middleware: languageModelMiddleware(registry) });
  const tools = wrapAiSdkTools(registry, { weather });
  return streamText({ model, prompt: `Weather in ${city}?`, tools, stopWhen: stepCountIs(3) });
}
