/**
 * The errors of MCP toolsets (MW-319, MW-323): options refused before any
 * request, and a client that cannot reach its server or a server that
 * answers with a JSON-RPC error, listing and calling.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExecuteToolStage, type ToolResultEvent } from '../../src/agent/index';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { mcpTools, type McpClient, type McpToolsOptions } from '../../src/mcp/index';
import { callOnce, connect, connectTo, type Connected } from './in-memory-server';

let connected: Omit<Connected, 'server'> | undefined;
afterEach(async () => {
  await connected?.close();
  connected = undefined;
});

/** The coded fields of what `promise` rejects with. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    if (!MiddlewareError.isInstance(error)) return error;
    return { code: error.code, phase: error.phase, handler: error.handler, cause: error.cause === undefined ? 'none' : 'kept' };
  }
}

/** The error kept with the one tool result of a run calling `name`. */
async function callError(client: McpClient, name: string): Promise<unknown> {
  const seen: ToolResultEvent[] = [];
  const registry = new MiddlewareRegistry();
  registry.add(ExecuteToolStage.Output, (result) => (seen.push(result.value), result));
  await callOnce(await mcpTools({ client }), name, {}, registry);
  const error = seen[0]?.error;
  return MiddlewareError.isInstance(error)
    ? {
        code: error.code,
        stage: error.stage,
        phase: error.phase,
        handler: error.handler,
        cause: error.cause instanceof McpError || error.cause instanceof Error,
      }
    : error;
}

const client: McpClient = { listTools: () => Promise.resolve({ tools: [] }), callTool: () => Promise.resolve({ content: [] }) };

describe('mcpTools', () => {
  describe('malformed options', () => {
    it.each([
      ['no options', undefined],
      ['no client', {}],
      ['a client without callTool', { client: { listTools: () => Promise.resolve({ tools: [] }) } }],
      ['an empty name', { client, name: '' }],
      ['a prefix that is no string', { client, prefix: 1 }],
      ['listChanged that is no boolean', { client, listChanged: 'yes' }],
      ['onError that is no function', { client, onError: 'log' }],
      ['needsApproval of another type', { client, needsApproval: 'always' }],
    ])('rejects %s with ERR_INVALID_OPTIONS', async (_name, options) => {
      expect(await rejection(mcpTools(options as McpToolsOptions))).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        phase: 'register',
        handler: 'mcpTools',
        cause: 'none',
      });
    });
  });

  describe('a listing that fails', () => {
    it('rejects with ERR_MCP_CONNECTION when the client is closed', async () => {
      const pair = await connect((server) => {
        server.registerTool('a', {}, () => ({ content: [] }));
      });
      await pair.close();
      expect(await rejection(mcpTools({ client: pair.client }))).toEqual({
        code: 'ERR_MCP_CONNECTION',
        phase: 'register',
        handler: 'mcpTools',
        cause: 'kept',
      });
    });

    it('rejects with ERR_MCP_PROTOCOL when the server answers with a JSON-RPC error, and removes its handler again', async () => {
      // The low-level server under McpServer, answering with a JSON-RPC error where McpServer would answer isError.
      const mcp = new McpServer({ name: 'strict', version: '1.0.0' }, { capabilities: { tools: {} } });
      mcp.server.setRequestHandler(ListToolsRequestSchema, () => {
        throw new McpError(ErrorCode.InternalError, 'index unavailable');
      });
      connected = await connectTo(mcp);
      const removal = vi.spyOn(connected.client, 'removeNotificationHandler');
      const rejected = await rejection(mcpTools({ client: connected.client }));
      expect({ rejected, removed: removal.mock.calls }).toEqual({
        rejected: { code: 'ERR_MCP_PROTOCOL', phase: 'register', handler: 'mcpTools', cause: 'kept' },
        removed: [['notifications/tools/list_changed']],
      });
    });

    it.each([
      ['a result without tools', { nextCursor: 'x' }],
      ['a tool without a name', { tools: [{ description: 'nameless' }] }],
      ['a tool whose input schema is no object', { tools: [{ name: 'a', inputSchema: 'any' }] }],
      ['a name listed twice', { tools: [{ name: 'a' }, { name: 'a' }] }],
      ['a cursor given twice', { tools: [], nextCursor: 'same' }],
    ])('rejects %s with ERR_MCP_PROTOCOL', async (_name, page) => {
      const malformed: McpClient = { ...client, listTools: () => Promise.resolve(page) };
      expect(await rejection(mcpTools({ client: malformed }))).toEqual({
        code: 'ERR_MCP_PROTOCOL',
        phase: 'register',
        handler: 'mcpTools',
        cause: 'none',
      });
    });
  });

  describe('an input schema JSON cannot carry', () => {
    it('rejects with ERR_MCP_PROTOCOL naming where in the schema the value is', async () => {
      const listed: McpClient = { ...client, listTools: () => Promise.resolve({ tools: [{ name: 'a', inputSchema: { maximum: 1n } }] }) };
      const error = await mcpTools({ client: listed }).then(
        () => undefined,
        (thrown: unknown) => thrown as MiddlewareError,
      );
      expect([error?.code, error?.message]).toEqual([
        'ERR_MCP_PROTOCOL',
        '[ERR_MCP_PROTOCOL] listing the tools of MCP server "server": the answer holds a value that is not JSON (the input schema of tool "a".maximum is a BigInt), which MCP does not allow. The server does not follow the Model Context Protocol: fix or update it.',
      ]);
    });
  });

  describe('pages', () => {
    it('follows nextCursor through every page, and gives a tool without an input schema any object', async () => {
      const requests: unknown[] = [];
      const paged: McpClient = {
        ...client,
        listTools: (params) => {
          requests.push(params);
          return Promise.resolve(params?.cursor === undefined ? { tools: [{ name: 'a' }], nextCursor: 'p2' } : { tools: [{ name: 'b' }] });
        },
      };
      const toolset = await mcpTools({ client: paged, listChanged: false });
      expect({ requests, specs: toolset.tools.map((tool) => tool.spec) }).toEqual({
        requests: [undefined, { cursor: 'p2' }],
        specs: [
          { name: 'a', description: '', inputSchema: { type: 'object' } },
          { name: 'b', description: '', inputSchema: { type: 'object' } },
        ],
      });
    });
  });

  describe('a call that fails', () => {
    it('keeps ERR_MCP_PROTOCOL with the result when the server answers with a JSON-RPC error', async () => {
      const mcp = new McpServer({ name: 'strict', version: '1.0.0' }, { capabilities: { tools: {} } });
      mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'lookup', inputSchema: { type: 'object' } }] }));
      mcp.server.setRequestHandler(CallToolRequestSchema, () => {
        throw new McpError(ErrorCode.InvalidParams, 'id must be a number');
      });
      connected = await connectTo(mcp);
      expect(await callError(connected.client, 'lookup')).toEqual({
        code: 'ERR_MCP_PROTOCOL',
        stage: 'executeTool',
        phase: 'terminal',
        handler: 'lookup',
        cause: true,
      });
    });

    it('keeps ERR_MCP_CONNECTION with the result when the client lost its server', async () => {
      const pair = await connect((server) => {
        server.registerTool('a', {}, () => ({ content: [] }));
      });
      const toolset = await mcpTools({ client: pair.client });
      await pair.close();
      const seen: ToolResultEvent[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Output, (result) => (seen.push(result.value), result));
      const { results } = await callOnce(toolset, 'a', {}, registry);
      const error = seen[0]?.error;
      expect({ status: results[0]?.status, code: MiddlewareError.isInstance(error) && error.code }).toEqual({
        status: 'error',
        code: 'ERR_MCP_CONNECTION',
      });
    });
  });
});
