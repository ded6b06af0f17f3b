/**
 * The errors of MCP toolsets: the table of the codes the entry point adds
 * (code → rule of `spec/SPEC.md` → meaning) and every message builder. The
 * core's `ERR_INVALID_OPTIONS` it raises too is in the core's table.
 *
 * @packageDocumentation
 */
import type { ErrorCodeEntry, ErrorTable } from '../core/internal';
import { MiddlewareError } from '../core/index';
import { ExecuteToolStage } from '../agent/index';
import { thrownText } from '../agent/values/value-walk';
import { isObject } from '../util/is-object';

/** The codes MCP toolsets add. */
export const MCP_ERROR_CODES = {
  ERR_MCP_CONNECTION: {
    rule: 'MW-323',
    meaning:
      "an MCP client could not reach its server: it is not connected, the connection closed or timed out, or the transport failed (the client's error is the `cause`)",
  },
  ERR_MCP_PROTOCOL: {
    rule: 'MW-323',
    meaning:
      'an MCP server answered with a JSON-RPC error (an unknown tool, invalid parameters) or with a result that does not have the shape MCP prescribes',
  },
  ERR_MCP_TOOL_ERROR: {
    rule: 'MW-321',
    meaning: 'an MCP tool answered with `isError: true`; the agent sends its text back to the model as an error result',
  },
} as const satisfies ErrorTable;

/** A code MCP toolsets add (their table, not the core's codes they raise too). */
export type McpErrorCode = keyof typeof MCP_ERROR_CODES;

declare global {
  interface StagedMiddlewareErrorCodes extends Record<McpErrorCode, ErrorCodeEntry> {}
}

/** JSON-RPC error codes that say the server was not reached in time, not that it answered (MW-323). */
const CONNECTION_CODES: ReadonlySet<number> = new Set([-32000, -32001]);

/** Where an error of a server's answer arose: a listing of the toolset, or a call of one of its tools. */
export type McpRequest = { readonly kind: 'list' } | { readonly kind: 'call'; readonly tool: string; readonly listedAs: string };

/** Where an error of `request` goes: a listing is registering, a call the terminal of ExecuteToolStage. */
function placeOf(request: McpRequest): { stage?: string; phase: 'register' | 'terminal'; handler: string } {
  return request.kind === 'list'
    ? { phase: 'register', handler: 'mcpTools' }
    : { stage: ExecuteToolStage.name, phase: 'terminal', handler: request.listedAs };
}

/** What `request` is, for a message. */
function requestText(server: string, request: McpRequest): string {
  return request.kind === 'list'
    ? `listing the tools of MCP server "${server}"`
    : `calling tool "${request.tool}" of MCP server "${server}"`;
}

/** The error of a malformed `mcpTools` option, or of a closed toolset (MW-319, MW-324). */
export function invalidMcpOptions(problem: string): MiddlewareError {
  return new MiddlewareError({ code: 'ERR_INVALID_OPTIONS', phase: 'register', handler: 'mcpTools', message: `mcpTools(): ${problem}.` });
}

/**
 * The error a rejection of the client becomes (MW-323): a JSON-RPC error the
 * server answered, or the client's schema check, is the protocol's; anything
 * else means the server was not reached.
 */
export function clientFailure(server: string, request: McpRequest, error: unknown): MiddlewareError {
  const code = isObject(error) ? (error as { code?: unknown }).code : undefined;
  const name = isObject(error) ? (error as { name?: unknown }).name : undefined;
  const answered = (typeof code === 'number' && !CONNECTION_CODES.has(code)) || name === 'ZodError';
  const shown = thrownText(error);
  return new MiddlewareError({
    code: answered ? 'ERR_MCP_PROTOCOL' : 'ERR_MCP_CONNECTION',
    ...placeOf(request),
    message: answered
      ? `${requestText(server, request)} failed: the server answered "${shown}". Check the tool's name and input against what the server lists.`
      : `${requestText(server, request)} failed: "${shown}". Connect the client (await client.connect(transport)) and keep it open while the toolset is in use.`,
    cause: error,
  });
}

/** The error of an answer that does not have the shape MCP prescribes (MW-319, MW-321). */
export function malformedAnswer(server: string, request: McpRequest, problem: string): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_MCP_PROTOCOL',
    ...placeOf(request),
    message: `${requestText(server, request)}: ${problem}, which MCP does not allow. The server does not follow the Model Context Protocol: fix or update it.`,
  });
}

/** The error of a result with `isError: true` (MW-321): the model reads its text. */
export function toolAnsweredError(
  server: string,
  request: McpRequest & { readonly kind: 'call' },
  text: string,
  result: unknown,
): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_MCP_TOOL_ERROR',
    ...placeOf(request),
    message: `tool "${request.tool}" of MCP server "${server}" answered with an error: ${text}`,
    cause: result,
  });
}
