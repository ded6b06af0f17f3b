/**
 * staged-middleware/ai-sdk: any Vercel AI SDK language model as a model of
 * the agent kit (`fromAiSdk`), and a registry's handlers inside the AI SDK's
 * own loop: InvokeModelStage around its model calls
 * (`languageModelMiddleware`), ExecuteToolStage around its tools
 * (`wrapAiSdkTools`). It loads nothing of the AI SDK; `@ai-sdk/provider` is an
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
export { wrapAiSdkTools } from './wrap-ai-sdk-tools';
export type { AiSdkTool, AiSdkToolExecutionOptions, WrapAiSdkToolsOptions } from './wrap-ai-sdk-tools';
export type { AiSdkNeedsApproval, AiSdkToolApproval, AiSdkToolApprovalRule } from './ai-sdk-tool-approval';
export type { AiSdkErrorCode } from './errors';
export type { AiSdkFinishReason, AiSdkStreamPart, AiSdkUsage } from './to-stream-parts';
export type { AiSdkLanguageModel } from './ai-sdk-types';
