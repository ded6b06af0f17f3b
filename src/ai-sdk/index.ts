/**
 * staged-middleware/ai-sdk: any Vercel AI SDK language model as a model of
 * the agent kit. It loads nothing of the AI SDK; `@ai-sdk/provider` is an
 * optional peer whose types the adapter declares itself.
 *
 * Every public name of this entry point is listed here.
 *
 * @example
 * ```ts
 * import { openai } from '@ai-sdk/openai';
 * import { Agent } from 'staged-middleware/agent';
 * import { fromAiSdk } from 'staged-middleware/ai-sdk';
 *
 * const agent = new Agent({ model: fromAiSdk(openai('gpt-4.1')), registry });
 * ```
 *
 * @packageDocumentation
 */
export { fromAiSdk } from './from-ai-sdk';
export type { AiSdkModel, FromAiSdkOptions } from './from-ai-sdk';
export { providerCachePoint } from './prompt';
export { languageModelMiddleware } from './language-model-middleware';
export type {
  AiSdkGenerateResult,
  AiSdkLanguageModelMiddleware,
  AiSdkWrapOptions,
  AiSdkWrapParams,
  LanguageModelMiddlewareOptions,
} from './language-model-middleware';
export type { AiSdkFinishReason, AiSdkStreamPart, AiSdkUsage } from './to-stream-parts';
export type { AiSdkLanguageModel } from './ai-sdk-types';
