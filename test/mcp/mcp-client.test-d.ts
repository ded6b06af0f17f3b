/**
 * The `Client` of `@modelcontextprotocol/sdk` is an `McpClient`, whatever its
 * transport, so `mcpTools` takes it as it is.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expectTypeOf, it } from 'vitest';
import { mcpTools, type McpClient, type McpToolset } from '../../src/mcp/index';

describe('McpClient', () => {
  it("takes the SDK's Client", () => {
    expectTypeOf<Client>().toExtend<McpClient>();
    expectTypeOf(mcpTools({ client: new Client({ name: 'c', version: '1' }) })).resolves.toEqualTypeOf<McpToolset>();
  });

  it('refuses an object without callTool', () => {
    // @ts-expect-error: a client needs callTool
    void mcpTools({ client: { listTools: () => Promise.resolve({ tools: [] }) } });
  });
});
