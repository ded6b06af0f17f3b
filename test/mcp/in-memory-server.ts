/**
 * A real MCP server of `@modelcontextprotocol/sdk` (`McpServer`) and a
 * client connected to it over the SDK's in-memory transport: what the unit
 * tests of `staged-middleware/mcp` run against, with no process or port.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Agent, type Message, type ToolResultBlock } from '../../src/agent/index';
import { MiddlewareRegistry } from '../../src/core/index';
import { ScriptedModel, textTurn, toolUseTurn } from '../../src/testing/index';

/** A server and the client connected to it. */
export interface Connected {
  readonly server: McpServer;
  readonly client: Client;
  /** Closes the client, then the server. */
  readonly close: () => Promise<void>;
}

/** Starts an `McpServer` named `name`, lets `define` register its tools, and connects a client to it. */
export async function connect(define: (server: McpServer) => void, name = 'docs'): Promise<Connected> {
  const server = new McpServer({ name, version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  define(server);
  return { ...(await connectTo(server)), server };
}

/** A server of the SDK's low-level kind (`Server`) or `McpServer`, and a client connected to it. */
export async function connectTo(server: Pick<McpServer, 'connect' | 'close'>): Promise<Omit<Connected, 'server'>> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The tool results of an agent's history, in order. */
export function toolResults(messages: readonly Message[]): ToolResultBlock[] {
  return messages.flatMap((message) => message.content.filter((block): block is ToolResultBlock => block.type === 'toolResult'));
}

/** Runs one agent whose model calls `name` with `input` once and then answers "done"; its registry and model. */
export async function callOnce(
  use: Parameters<MiddlewareRegistry['use']>[0],
  name: string,
  input: unknown,
  registry = new MiddlewareRegistry(),
): Promise<{ readonly results: ToolResultBlock[]; readonly model: ScriptedModel; readonly agent: Agent }> {
  const model = new ScriptedModel([toolUseTurn([{ name, input, toolUseId: 'call-1' }]), textTurn('done')]);
  const agent = new Agent({ model, registry });
  await agent.invoke('go', { use: [use] });
  return { results: toolResults(agent.messages), model, agent };
}
