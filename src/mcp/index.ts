/**
 * staged-middleware/mcp: the tools of Model Context Protocol servers as
 * tools of the agent. `mcpTools({ client })` takes a connected client of
 * `@modelcontextprotocol/sdk` (stdio, streamable HTTP or any transport) and
 * gives a bundle that contributes the server's tools (MW-319 – MW-324).
 *
 * Reading order: `mcp-types.ts` (the client it takes, its options, the
 * toolset), `mcp-tools.ts` (the bundle and its refreshes), `tool-list.ts`
 * (listing and calling), `call-result.ts` (what a call answers),
 * `errors.ts` (its error table).
 *
 * @packageDocumentation
 */
export { mcpTools } from './mcp-tools';
export type { McpCallToolParams, McpClient, McpRequestOptions, McpToolset, McpToolsOptions } from './mcp-types';
export type { McpErrorCode } from './errors';
