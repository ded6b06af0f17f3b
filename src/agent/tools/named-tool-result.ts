/**
 * A tool result as a loop records it (MW-183, MW-312): with the name of the
 * tool use it answers, which providers need beside the call's id.
 */
import { isObject } from '../../util/is-object';
import type { ToolResultBlock } from '../types/message';
import { invalidNamedResult } from './call-errors';
import type { ToolUseReference } from './tool-terminal';

/**
 * The result block to append to the history for `toolUse`: the block itself
 * when it has a string `name`, else a frozen copy with `name` set to
 * `toolUse.name` (a handler may build a result without one). The reference
 * agent records every tool result this way.
 *
 * @param toolResult - The `toolResult` of the event an ExecuteToolStage invoke delivered.
 * @param toolUse - The tool use it answers (a `toolUse` block, or the context's `toolUse`).
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `executeTool`) when `toolResult` is not an object or
 *   `toolUse` has no string `name`.
 * @example
 * ```ts
 * const answer = await registry.run(ExecuteToolStage, toolContext, toolTerminal);
 * const history = new History();
 * history.append({ role: 'user', content: [namedToolResult(answer.toolResult, toolContext.toolUse)] });
 * ```
 */
export function namedToolResult(toolResult: ToolResultBlock, toolUse: Pick<ToolUseReference, 'name'>): ToolResultBlock {
  if (!isObject(toolUse) || typeof (toolUse as { readonly name?: unknown }).name !== 'string')
    throw invalidNamedResult('toolUse must be the tool use answered, with a string name', toolUse);
  if (!isObject(toolResult)) throw invalidNamedResult('toolResult must be a toolResult block', toolResult);
  return typeof toolResult.name === 'string' ? toolResult : Object.freeze({ ...toolResult, name: toolUse.name });
}
