/**
 * MCP toolsets against a real MCP server process (`mcp-server.ts`, the SDK's
 * `McpServer`), started by the test over stdio and over streamable HTTP on a
 * free loopback port: the server's tools called through the agent, a
 * cancelled run reaching the server, and a tool the server adds offered to
 * the next run (MW-319 – MW-322).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Agent, type Message, type ToolResultBlock } from '../../src/agent/index';
import { MiddlewareRegistry } from '../../src/core/index';
import { mcpTools, type McpToolset } from '../../src/mcp/index';
import { ScriptedModel, textTurn, toolUseTurn } from '../../src/testing/index';
import { root } from '../readme-blocks';
import { freePort } from './free-port';

const SERVER = ['--import', 'tsx', 'test/integration/mcp-server.ts'];

/** Starts the server over streamable HTTP; resolves once it listens. */
async function httpServer(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...SERVER, 'http', String(port)], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(() => {
      throw new Error('the MCP server exited before it listened');
    }),
  ]);
  return child;
}

function toolResults(messages: readonly Message[]): ToolResultBlock[] {
  return messages.flatMap((message) => message.content.filter((block): block is ToolResultBlock => block.type === 'toolResult'));
}

describe.each(['stdio', 'streamable HTTP'] as const)('mcpTools over %s', (transport) => {
  let client: Client;
  let child: ChildProcess | undefined;
  let toolset: McpToolset;

  beforeAll(async () => {
    client = new Client({ name: 'integration', version: '1.0.0' });
    if (transport === 'stdio') {
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [...SERVER, 'stdio'], cwd: root }));
    } else {
      const port = await freePort();
      child = await httpServer(port);
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${String(port)}/mcp`)));
    }
    toolset = await mcpTools({ client, prefix: 'notes_' });
  });

  afterAll(async () => {
    toolset.close();
    await client.close();
    if (child?.exitCode === null) {
      child.kill();
      await once(child, 'exit');
    }
  });

  /** What the server's status tool says. */
  async function status(): Promise<unknown> {
    const result = (await client.callTool({ name: 'status' })) as { content: { text: string }[] };
    return JSON.parse(result.content[0]?.text ?? 'null');
  }

  it('offers the server tools to the model and calls them through the agent', async () => {
    const model = new ScriptedModel([toolUseTurn([{ name: 'notes_add', input: { a: 2, b: 3 }, toolUseId: 'add-1' }]), textTurn('5')]);
    const agent = new Agent({ model, registry: new MiddlewareRegistry() });
    await agent.invoke('2 + 3?', { use: [toolset] });
    expect({
      offered: model.calls[0]?.request.toolSpecs.map((spec) => spec.name),
      results: toolResults(agent.messages).map(({ name, status: resultStatus, content }) => ({ name, status: resultStatus, content })),
    }).toEqual({
      offered: ['notes_add', 'notes_wait', 'notes_status', 'notes_learn'],
      results: [{ name: 'notes_add', status: 'success', content: [{ type: 'json', json: { sum: 5 } }] }],
    });
  });

  it('passes a cancelled run on to the server, which sees the call cancelled', async () => {
    const controller = new AbortController();
    const agent = new Agent({
      model: new ScriptedModel([toolUseTurn([{ name: 'notes_wait', input: {}, toolUseId: 'wait-1' }]), textTurn('never')]),
      registry: new MiddlewareRegistry(),
    });
    const run = agent.invoke('wait', { use: [toolset], signal: controller.signal });
    await vi.waitFor(async () => {
      expect(await status()).toEqual({ waiting: 1, cancelled: 0 });
    });
    controller.abort('the user left');
    const result = await run;
    await vi.waitFor(async () => {
      expect(await status()).toEqual({ waiting: 0, cancelled: 1 });
    });
    expect(result.stopReason).toBe('cancelled');
  });

  it('offers a tool the server added to the next run', async () => {
    const model = new ScriptedModel([
      toolUseTurn([{ name: 'notes_learn', input: {}, toolUseId: 'learn-1' }]),
      textTurn('learned'),
      toolUseTurn([{ name: 'notes_shout', input: { text: 'hi' }, toolUseId: 'shout-1' }]),
      textTurn('HI'),
    ]);
    const agent = new Agent({ model, registry: new MiddlewareRegistry() });
    await agent.invoke('learn', { use: [toolset] });
    await vi.waitFor(() => {
      expect(toolset.tools.map((tool) => tool.spec.name)).toContain('notes_shout');
    });
    await agent.invoke('shout', { use: [toolset] });
    expect({
      offered: model.calls.map((call) => call.request.toolSpecs.length),
      last: toolResults(agent.messages).at(-1)?.content,
    }).toEqual({ offered: [4, 4, 5, 5], last: [{ type: 'text', text: 'HI' }] });
  });
});
