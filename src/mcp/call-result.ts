/**
 * What an MCP tool's call answers (MW-321): the result of `tools/call`,
 * untrusted, as the value the tool returns to the agent, or the error it
 * throws for a result with `isError`.
 */
import { describeValue } from '../util/describe-value';
import { isObject } from '../util/is-object';
import { ownEntry } from '../util/own-entry';
import { answerJson } from './answer-json';
import { malformedAnswer, toolAnsweredError, type McpRequest } from './errors';

/** A call of one tool of one server, for the messages of its errors. */
export interface McpCall {
  /** The server's name. */
  readonly server: string;
  /** The request. */
  readonly request: McpRequest & { readonly kind: 'call' };
}

/** The text of a content item of type `text`, or undefined for any other item. */
function textOf(item: unknown): string | undefined {
  if (!isObject(item) || ownEntry(item, 'type') !== 'text') return undefined;
  const text = ownEntry(item, 'text');
  return typeof text === 'string' ? text : undefined;
}

/**
 * The value a tool returns for `result` (MW-321): the structured content as
 * JSON, a single text as a string, else every content item as JSON.
 *
 * @throws MiddlewareError `ERR_MCP_TOOL_ERROR` for a result with `isError: true`; `ERR_MCP_PROTOCOL` for a result
 *   that is not an object, whose `content` is not an array, or that holds a value JSON cannot carry.
 */
export function answerOf(call: McpCall, result: unknown): unknown {
  if (!isObject(result) || Array.isArray(result)) {
    throw malformedAnswer(call.server, call.request, `the result is ${describeValue(result)}, not an object`);
  }
  const content = ownEntry(result, 'content');
  if (content !== undefined && !Array.isArray(content)) {
    throw malformedAnswer(call.server, call.request, `the result's content is ${describeValue(content)}, not an array`);
  }
  const items: readonly unknown[] = content ?? [];
  if (ownEntry(result, 'isError') === true) {
    const texts = items.map(textOf).filter((text) => text !== undefined);
    const copy = answerJson(call.server, call.request, result, 'result');
    throw toolAnsweredError(call.server, call.request, texts.length === 0 ? '(no text)' : texts.join('\n'), copy);
  }
  const structured = ownEntry(result, 'structuredContent');
  if (isObject(structured) && !Array.isArray(structured)) return answerJson(call.server, call.request, structured, 'structuredContent');
  const only = items.length === 1 ? textOf(items[0]) : undefined;
  if (only !== undefined) return only;
  return answerJson(call.server, call.request, items, 'content');
}
