/**
 * The errors of the AI SDK adapter: the table of the code the entry point
 * adds (code → rule of `spec/SPEC.md` → meaning) and every message builder of
 * the entry point. The core's `ERR_INVALID_OPTIONS` it raises too is in the
 * core's table, `core/errors.ts`.
 *
 * @packageDocumentation
 */
import type { ErrorCodeEntry, ErrorTable } from '../core/internal';
import { MiddlewareError } from '../core/index';
import { describeValue } from '../util/describe-value';

/** The codes the AI SDK adapter adds. */
export const AI_SDK_ERROR_CODES = {
  ERR_AI_SDK_CANNOT_HALT: {
    rule: 'MW-308',
    meaning:
      "`interrupt()` was asked, without a response, inside a tool call of the AI SDK's own loop (`wrapAiSdkTools`), which cannot halt on a question",
  },
} as const satisfies ErrorTable;

/** A code the AI SDK adapter adds (its table, not the core's codes it raises too). */
export type AiSdkErrorCode = keyof typeof AI_SDK_ERROR_CODES;

declare global {
  interface StagedMiddlewareErrorCodes extends Record<AiSdkErrorCode, ErrorCodeEntry> {}
}

/** The error of a `fromAiSdk` argument the adapter cannot use (MW-188). */
export function invalidAdapterOptions(problem: string): MiddlewareError {
  return new MiddlewareError({ code: 'ERR_INVALID_OPTIONS', phase: 'register', handler: 'fromAiSdk', message: `fromAiSdk(): ${problem}.` });
}

/**
 * The error of a model of a specification version the adapter does not take
 * (MW-301): what to install depends on whether the model is older or newer
 * than the adapter's versions.
 */
export function unsupportedSpecification(version: unknown): MiddlewareError {
  const shown = typeof version === 'string' ? `"${version}"` : describeValue(version);
  const number = typeof version === 'string' && /^v[0-9]+$/.test(version) ? Number(version.slice(1)) : undefined;
  const advice =
    number === undefined
      ? "pass a model of a provider package for ai 6 or ai 7 (openai('gpt-4.1') of @ai-sdk/openai, say)"
      : number < 3
        ? 'it comes from a provider package for an older ai: upgrade ai and the provider package together (npm i ai@latest @ai-sdk/openai@latest, say)'
        : `it comes from a provider package newer than ai 7: use the provider package's release for ai 7 (npm i ai@7 @ai-sdk/openai@4, say), or a release of staged-middleware that takes ${shown}`;
  return invalidAdapterOptions(
    `model implements the AI SDK's language model specification ${shown}, but the adapter takes "v3" (the providers of ai 6) and "v4" (the providers of ai 7); ${advice}`,
  );
}

/** The error of a `languageModelMiddleware` argument it cannot use (MW-302). */
export function invalidMiddlewareOptions(problem: string, handler = 'languageModelMiddleware'): MiddlewareError {
  return new MiddlewareError({ code: 'ERR_INVALID_OPTIONS', phase: 'register', handler, message: `${handler}(): ${problem}.` });
}

/** The error of a wrapped tool's `execute` called with options that are not the AI SDK's (MW-305). */
export function invalidExecuteOptions(tool: string, options: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: 'executeTool',
    handler: 'wrapAiSdkTools',
    message: `wrapAiSdkTools(): the execute of tool "${tool}" takes (input, { toolCallId, abortSignal?, ... }) as the AI SDK calls it, got options ${describeValue(options)}.`,
  });
}

/** The error of an approval predicate of `wrapAiSdkTools` that answered anything but a boolean (MW-307). */
export function approvalNotBoolean(tool: string, answer: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: 'executeTool',
    handler: 'wrapAiSdkTools',
    message: `wrapAiSdkTools(): the approval predicate of tool "${tool}" must return a boolean, got ${describeValue(answer)}.`,
  });
}

/** The error of provider options a `cachePoint` of `fromAiSdk` returned that cannot be copied as plain data (MW-145, MW-187). */
export function cachePointNotData(problem: string): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: 'invokeModel',
    phase: 'terminal',
    message: `fromAiSdk: what options.cachePoint returned cannot be copied: ${problem}. Return plain data from it: objects, arrays, strings, numbers, booleans and null.`,
  });
}

/** The error of a tool result no name can be found for, which no AI SDK provider can send (MW-187). */
export function namelessToolResult(toolUseId: string): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: 'invokeModel',
    phase: 'terminal',
    message: `fromAiSdk: the tool result for tool use "${toolUseId}" has no name, and no earlier message has a tool use with that id. AI SDK providers send a tool result with its tool's name: give the result the name of the tool called.`,
  });
}

/**
 * The error of a question asked inside a tool call of the AI SDK's loop with
 * no response (MW-308): the loop has no halt and resume, so the call fails.
 */
export function cannotHalt(ids: readonly string[]): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_AI_SDK_CANNOT_HALT',
    stage: 'executeTool',
    message: `interrupt() asked ${ids.map((id) => `"${id}"`).join(', ')} inside a tool call of the AI SDK's own loop, which cannot halt on a question and resume. Ask for a tool's approval through wrapAiSdkTools(registry, tools, { approval: { [toolName]: true } }): the AI SDK asks before execute, and its answer approves or denies (an edit of the input cannot be expressed). Give any other question its response in advance (interrupt({ name, response })), or run the tools in the agent kit's Agent, which halts and resumes.`,
  });
}
