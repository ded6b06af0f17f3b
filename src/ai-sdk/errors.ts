/**
 * The errors of the AI SDK adapter: every message builder of the entry
 * point. It adds no code of its own; the codes it raises
 * (`ERR_INVALID_OPTIONS`) are in the core's table, `core/errors.ts`.
 *
 * @packageDocumentation
 */
import { MiddlewareError } from '../core/index';

/** The error of a `fromAiSdk` argument the adapter cannot use (MW-188). */
export function invalidAdapterOptions(problem: string): MiddlewareError {
  return new MiddlewareError({ code: 'ERR_INVALID_OPTIONS', phase: 'register', handler: 'fromAiSdk', message: `fromAiSdk(): ${problem}.` });
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
