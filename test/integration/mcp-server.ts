/**
 * A small MCP server of `@modelcontextprotocol/sdk`'s `McpServer`, run as its
 * own process by `mcp.test.ts`: over stdio (`mcp-server.ts stdio`) or over
 * streamable HTTP on a loopback port (`mcp-server.ts http <port>`, printing
 * `listening` once it listens).
 *
 * Its tools: `add` (a sum, as text and structured content), `wait` (answers
 * only when cancelled), `status` (how many `wait` calls are waiting and how
 * many were cancelled), `learn` (registers the tool `shout`, so the server
 * sends `notifications/tools/list_changed`).
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

function notesServer(): McpServer {
  const server = new McpServer({ name: 'notes', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  let waiting = 0;
  let cancelled = 0;
  server.registerTool(
    'add',
    { description: 'Adds two numbers.', inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } },
    ({ a, b }) => ({ ...text(String(a + b)), structuredContent: { sum: a + b } }),
  );
  server.registerTool(
    'wait',
    { description: 'Waits until the call is cancelled.' },
    (extra) =>
      new Promise<ReturnType<typeof text>>((resolve) => {
        waiting++;
        extra.signal.addEventListener(
          'abort',
          () => {
            waiting--;
            cancelled++;
            resolve(text('cancelled'));
          },
          { once: true },
        );
      }),
  );
  server.registerTool('status', { description: 'How many calls of wait wait, and how many were cancelled.' }, () =>
    text(JSON.stringify({ waiting, cancelled })),
  );
  server.registerTool('learn', { description: 'Adds the tool shout.' }, () => {
    server.registerTool('shout', { description: 'Shouts.', inputSchema: { text: z.string() } }, ({ text: said }) =>
      text(said.toUpperCase()),
    );
    return text('learned');
  });
  return server;
}

const [mode, port] = process.argv.slice(2);
if (mode === 'stdio') {
  await notesServer().connect(new StdioServerTransport());
} else if (mode === 'http') {
  // One session: the test connects one client.
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await notesServer().connect(transport);
  createServer((request, response) => {
    if (request.url === '/mcp') void transport.handleRequest(request, response);
    else response.writeHead(404).end();
  }).listen(Number(port), '127.0.0.1', () => {
    console.log('listening');
  });
} else {
  throw new Error('usage: mcp-server.ts stdio | http <port>');
}
