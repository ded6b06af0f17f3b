/**
 * `mcpTools` against a real `McpServer` of `@modelcontextprotocol/sdk` over
 * its in-memory transport: the tools a server lists as tools of the agent
 * (MW-319), their calls through ExecuteToolStage (MW-320) and what the
 * calls answer (MW-321).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent, ExecuteToolStage, errorResult, ToolsKey, type ToolResultEvent } from '../../src/agent/index';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { mcpTools } from '../../src/mcp/index';
import { ScriptedModel, textTurn, toolUseTurn } from '../../src/testing/index';
import { callOnce, connect, toolResults, type Connected } from './in-memory-server';

let connected: Connected | undefined;
afterEach(async () => {
  await connected?.close();
  connected = undefined;
});

/** A docs server: `search` (described, with an input schema), `fetch` (a title only) and `ping` (neither). */
async function docsServer(calls: unknown[] = []): Promise<Connected> {
  connected = await connect((server) => {
    server.registerTool('search', { description: 'Searches the docs.', inputSchema: { q: z.string() } }, ({ q }) => {
      calls.push({ search: q });
      return { content: [{ type: 'text', text: `found 2 pages for ${q}` }] };
    });
    server.registerTool('fetch', { title: 'Fetch a page' }, () => ({ content: [{ type: 'text', text: 'page' }] }));
    server.registerTool('ping', {}, () => ({ content: [] }));
  });
  return connected;
}

describe('mcpTools', () => {
  describe('listing a server', () => {
    it('makes each listed tool a tool of the agent, in listed order, with its description and input schema', async () => {
      const { client } = await docsServer();
      const toolset = await mcpTools({ client });
      const listed = (await client.listTools()).tools;
      expect(toolset.tools.map((tool) => tool.spec)).toEqual([
        { name: 'search', description: 'Searches the docs.', inputSchema: listed[0]?.inputSchema },
        { name: 'fetch', description: 'Fetch a page', inputSchema: listed[1]?.inputSchema },
        { name: 'ping', description: '', inputSchema: listed[2]?.inputSchema },
      ]);
      expect(listed[0]?.inputSchema).toMatchObject({ type: 'object', properties: { q: { type: 'string' } } });
    });

    it('is a bundle named after the server, whose setup contributes the tools', async () => {
      const { client } = await docsServer();
      const toolset = await mcpTools({ client });
      const registry = new MiddlewareRegistry();
      registry.use(toolset);
      expect({ name: toolset.name, contributed: registry.contributions(ToolsKey).map(({ id, bundle }) => ({ id, bundle })) }).toEqual({
        name: 'mcp:docs',
        contributed: [
          { id: 'search', bundle: 'mcp:docs' },
          { id: 'fetch', bundle: 'mcp:docs' },
          { id: 'ping', bundle: 'mcp:docs' },
        ],
      });
    });

    it('puts the prefix before every name the model sees and takes a name of its own', async () => {
      const { client } = await docsServer();
      const toolset = await mcpTools({ client, prefix: 'docs_', name: 'documentation' });
      expect({ name: toolset.name, tools: toolset.tools.map((tool) => tool.spec.name) }).toEqual({
        name: 'documentation',
        tools: ['docs_search', 'docs_fetch', 'docs_ping'],
      });
    });

    it('gives every tool the needsApproval option', async () => {
      const { client } = await docsServer();
      const toolset = await mcpTools({ client, needsApproval: true });
      expect(toolset.tools.map((tool) => tool.needsApproval)).toEqual([true, true, true]);
    });

    it('freezes the list and every tool', async () => {
      const { client } = await docsServer();
      const toolset = await mcpTools({ client });
      expect([toolset, toolset.tools, ...toolset.tools, ...toolset.tools.map((tool) => tool.spec)].every(Object.isFrozen)).toBe(true);
    });
  });

  describe('two servers with a tool of one name', () => {
    it('refuses the second with ERR_DUPLICATE_ID naming both bundles, and takes both with a prefix', async () => {
      const { client } = await docsServer();
      const [first, second, prefixed] = await Promise.all([
        mcpTools({ client, name: 'mcp:one' }),
        mcpTools({ client, name: 'mcp:two' }),
        mcpTools({ client, name: 'mcp:three', prefix: 'three_' }),
      ]);
      const registry = new MiddlewareRegistry();
      registry.use(first);
      let refused: unknown;
      try {
        registry.use(second);
      } catch (error) {
        refused = error;
      }
      expect(MiddlewareError.isInstance(refused) && { code: refused.code, message: refused.message }).toEqual({
        code: 'ERR_DUPLICATE_ID',
        message: expect.stringMatching(/mcp:two[\s\S]*mcp:one|mcp:one[\s\S]*mcp:two/) as unknown,
      });
      registry.use(prefixed);
      expect(registry.contributions(ToolsKey).map(({ id }) => id)).toEqual([
        'search',
        'fetch',
        'ping',
        'three_search',
        'three_fetch',
        'three_ping',
      ]);
    });
  });

  describe('a call through the agent', () => {
    it('calls the tool by its listed name with the model input and answers with its single text', async () => {
      const calls: unknown[] = [];
      const { client } = await docsServer(calls);
      const { results, model } = await callOnce(await mcpTools({ client, prefix: 'docs_' }), 'docs_search', { q: 'keys' });
      expect({ calls, results, offered: model.calls[0]?.request.toolSpecs.map((spec) => spec.name) }).toEqual({
        calls: [{ search: 'keys' }],
        results: [
          {
            type: 'toolResult',
            toolUseId: 'call-1',
            name: 'docs_search',
            status: 'success',
            content: [{ type: 'text', text: 'found 2 pages for keys' }],
          },
        ],
        offered: ['docs_search', 'docs_fetch', 'docs_ping'],
      });
    });

    it('answers with one JSON block of the structured content', async () => {
      connected = await connect((server) => {
        server.registerTool('weather', { outputSchema: { celsius: z.number() } }, () => ({
          content: [{ type: 'text', text: '{"celsius":21}' }],
          structuredContent: { celsius: 21 },
        }));
      });
      const { results } = await callOnce(await mcpTools({ client: connected.client }), 'weather', {});
      expect(results.map((result) => result.content)).toEqual([[{ type: 'json', json: { celsius: 21 } }]]);
    });

    it('answers with one JSON block of every content item when there is more than one text', async () => {
      connected = await connect((server) => {
        server.registerTool('chart', {}, () => ({
          content: [
            { type: 'text', text: 'Sales' },
            { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
          ],
        }));
      });
      const { results } = await callOnce(await mcpTools({ client: connected.client }), 'chart', {});
      expect(results.map((result) => result.content)).toEqual([
        [
          {
            type: 'json',
            json: [
              { type: 'text', text: 'Sales' },
              { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
            ],
          },
        ],
      ]);
    });

    it('answers a result with isError as an error result keeping ERR_MCP_TOOL_ERROR', async () => {
      connected = await connect((server) => {
        server.registerTool('quota', {}, () => ({ isError: true, content: [{ type: 'text', text: 'quota exceeded' }] }));
      });
      const seen: ToolResultEvent[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Output, function keep(result) {
        seen.push(result.value);
        return result;
      });
      const { results } = await callOnce(await mcpTools({ client: connected.client }), 'quota', {}, registry);
      const error = seen[0]?.error;
      expect({
        status: results[0]?.status,
        text: results[0]?.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
        error: MiddlewareError.isInstance(error) && { code: error.code, stage: error.stage, phase: error.phase, handler: error.handler },
      }).toEqual({
        status: 'error',
        text: expect.stringMatching(/^Tool "quota" failed: .*"quota".*"docs".*quota exceeded$/) as unknown,
        error: { code: 'ERR_MCP_TOOL_ERROR', stage: 'executeTool', phase: 'terminal', handler: 'quota' },
      });
    });

    it('never reaches the server when an ExecuteToolStage guard answers instead', async () => {
      const calls: unknown[] = [];
      const { client } = await docsServer(calls);
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, async function* noSearch(context, next) {
        if (context.toolUse.name === 'search') yield errorResult(context.toolUse, 'Searching is off.');
        else yield* next();
      });
      const { results } = await callOnce(await mcpTools({ client }), 'search', { q: 'keys' }, registry);
      expect({ calls, content: results[0]?.content }).toEqual({ calls: [], content: [{ type: 'text', text: 'Searching is off.' }] });
    });

    it('asks for approval first with needsApproval, and calls the server once approved', async () => {
      const calls: unknown[] = [];
      const { client } = await docsServer(calls);
      const model = new ScriptedModel([toolUseTurn([{ name: 'search', input: { q: 'keys' }, toolUseId: 'call-1' }]), textTurn('done')]);
      const agent = new Agent({ model, registry: new MiddlewareRegistry() });
      const toolset = await mcpTools({ client, needsApproval: true });
      const halted = await agent.invoke('go', { use: [toolset] });
      const callsBefore = [...calls];
      const answers = Object.fromEntries(halted.interrupts.map((question) => [question.id, { decision: 'approve' }]));
      await agent.resume(answers, { use: [toolset] });
      expect({ stop: halted.stopReason, names: halted.interrupts.map((question) => question.name), callsBefore, calls }).toEqual({
        stop: 'interrupt',
        names: ['toolApproval'],
        callsBefore: [],
        calls: [{ search: 'keys' }],
      });
      expect(toolResults(agent.messages).map((result) => result.status)).toEqual(['success']);
    });

    it('passes the run abort on, so the server sees the call cancelled', async () => {
      let cancelled: Promise<unknown> | undefined;
      let started: () => void = () => undefined;
      const running = new Promise<void>((resolve) => (started = resolve));
      connected = await connect((server) => {
        server.registerTool('slow', {}, (extra) => {
          cancelled = new Promise((resolve) => {
            extra.signal.addEventListener(
              'abort',
              () => {
                resolve(extra.signal.aborted);
              },
              { once: true },
            );
          });
          started();
          return new Promise<never>(() => undefined);
        });
      });
      const controller = new AbortController();
      const agent = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'slow', input: {}, toolUseId: 'call-1' }]), textTurn('done')]),
        registry: new MiddlewareRegistry(),
      });
      const run = agent.invoke('go', { use: [await mcpTools({ client: connected.client })], signal: controller.signal });
      await running;
      controller.abort('user left');
      const result = await run;
      expect({ stop: result.stopReason, serverSawAbort: await cancelled }).toEqual({ stop: 'cancelled', serverSawAbort: true });
    });
  });
});
