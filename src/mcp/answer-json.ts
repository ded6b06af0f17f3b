/**
 * A part of what an MCP server answered, as JSON: a copy made as
 * `JSON.parse` would make it, so a key `__proto__` is an own key like any
 * other (MW-319, MW-321).
 */
import { toJsonValue } from '../agent/values/json-value';
import { malformedAnswer, type McpRequest } from './errors';

/**
 * The frozen JSON copy of `value`, the part of the server's answer to `request` that `root` names in the message.
 *
 * @throws MiddlewareError `ERR_MCP_PROTOCOL` when it holds a value JSON cannot carry (a BigInt, a cycle).
 */
export function answerJson(server: string, request: McpRequest, value: unknown, root: string): unknown {
  const conversion = toJsonValue(value, root);
  if (!conversion.ok) throw malformedAnswer(server, request, `the answer holds a value that is not JSON (${conversion.problem})`);
  return conversion.json;
}
