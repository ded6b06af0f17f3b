/**
 * Listing an MCP server's tools (MW-319): every page of `tools/list`, each
 * listed tool checked and made a tool of the agent whose `run` calls it
 * (MW-320).
 */
import type { NeedsApproval, Tool, ToolRunContext } from '../agent/types/tool';
import { describeValue } from '../util/describe-value';
import { isObject } from '../util/is-object';
import { ownEntry } from '../util/own-entry';
import { answerJson } from './answer-json';
import { answerOf, type McpCall } from './call-result';
import { clientFailure, malformedAnswer, type McpRequest } from './errors';
import type { McpClient } from './mcp-types';

/** What every tool of one toolset shares. */
export interface ToolListSource {
  /** The connected client. */
  readonly client: McpClient;
  /** The server's name, for messages. */
  readonly server: string;
  /** Put before each name the model sees. */
  readonly prefix: string;
  /** Given to every tool, when set. */
  readonly needsApproval: NeedsApproval | undefined;
}

const LISTING: McpRequest = Object.freeze({ kind: 'list' });

/** The input schema a tool without one gets: any object. */
const ANY_OBJECT = Object.freeze({ type: 'object' });

/**
 * The server's tools as tools of the agent, in listed order (frozen): every
 * page, following `nextCursor`.
 *
 * @throws MiddlewareError `ERR_MCP_PROTOCOL` or `ERR_MCP_CONNECTION` (MW-323) when a page cannot be listed or
 *   a listed tool is malformed.
 */
export async function listTools(source: ToolListSource): Promise<readonly Tool[]> {
  const tools: Tool[] = [];
  const names = new Set<string>();
  const followed = new Set<string>();
  let cursor: string | undefined;
  do {
    let page: unknown;
    try {
      page = await (cursor === undefined ? source.client.listTools(undefined) : source.client.listTools({ cursor }));
    } catch (error) {
      throw clientFailure(source.server, LISTING, error);
    }
    const listed = isObject(page) ? ownEntry(page, 'tools') : undefined;
    if (!Array.isArray(listed))
      throw malformedAnswer(source.server, LISTING, `the result is ${describeValue(page)}, without a tools array`);
    for (const entry of listed as unknown[]) {
      const tool = mcpTool(source, entry);
      if (names.has(tool.spec.name)) throw malformedAnswer(source.server, LISTING, `the tool "${tool.spec.name}" is listed twice`);
      names.add(tool.spec.name);
      tools.push(tool);
    }
    const next = ownEntry(page as object, 'nextCursor');
    cursor = typeof next === 'string' ? next : undefined;
    if (cursor !== undefined) {
      if (followed.has(cursor)) throw malformedAnswer(source.server, LISTING, `the cursor "${cursor}" is given twice`);
      followed.add(cursor);
    }
  } while (cursor !== undefined);
  return Object.freeze(tools);
}

/** One listed tool as a tool of the agent. */
function mcpTool(source: ToolListSource, listed: unknown): Tool {
  const name = isObject(listed) ? ownEntry(listed, 'name') : undefined;
  if (typeof name !== 'string' || name.length === 0) {
    throw malformedAnswer(source.server, LISTING, `a listed tool is ${describeValue(listed)}, without a non-empty string name`);
  }
  const entry = listed as object;
  const schema = ownEntry(entry, 'inputSchema');
  if (schema !== undefined && (!isObject(schema) || Array.isArray(schema))) {
    throw malformedAnswer(source.server, LISTING, `the input schema of tool "${name}" is ${describeValue(schema)}, not an object`);
  }
  const description = ownEntry(entry, 'description');
  const title = ownEntry(entry, 'title');
  const listedAs = source.prefix + name;
  const spec = Object.freeze({
    name: listedAs,
    description: typeof description === 'string' ? description : typeof title === 'string' ? title : '',
    inputSchema:
      schema === undefined
        ? ANY_OBJECT
        : (answerJson(source.server, LISTING, schema, `the input schema of tool "${name}"`) as Record<string, unknown>),
  });
  const call: McpCall = { server: source.server, request: Object.freeze({ kind: 'call', tool: name, listedAs }) };
  const { client } = source;
  return Object.freeze({
    spec,
    async run(input: unknown, context: ToolRunContext): Promise<unknown> {
      const { signal } = context;
      let result: unknown;
      try {
        result = await client.callTool({ name, arguments: input as Record<string, unknown> }, undefined, { signal });
      } catch (error) {
        // A cancelled call ends as the terminal ends it (MW-112): what the client rejected with is no answer.
        if (signal.aborted) throw error;
        throw clientFailure(call.server, call.request, error);
      }
      return answerOf(call, result);
    },
    ...(source.needsApproval === undefined ? {} : { needsApproval: source.needsApproval }),
  });
}
