/**
 * The parts of a Model Context Protocol client that MCP toolsets use, the
 * options of `mcpTools` and the toolset it makes. Pure types.
 *
 * Why declared here rather than imported: the declarations of this entry
 * point must compile where `@modelcontextprotocol/sdk` is not installed (it
 * is an optional peer, and the toolset needs none of its code). The `Client`
 * of `@modelcontextprotocol/sdk` fits {@link McpClient}, over any transport
 * (stdio, streamable HTTP, in memory), which the type tests check.
 *
 * @packageDocumentation
 */
import type { Middleware } from '../core/index';
import type { NeedsApproval, Tool } from '../agent/types/tool';

/** What a request to the server may carry: the signal that cancels it. */
export interface McpRequestOptions {
  /** Aborting it makes the client send `notifications/cancelled` and stop waiting. */
  readonly signal?: AbortSignal;
}

/** The parameters of a `tools/call` request. */
export interface McpCallToolParams {
  /** The tool's name, as the server lists it. */
  readonly name: string;
  /** The tool's input (the model's, or the approved one). */
  readonly arguments?: Record<string, unknown>;
}

/**
 * A connected MCP client: the `Client` of `@modelcontextprotocol/sdk` once
 * `await client.connect(transport)` resolved. Every answer it gives is read
 * as untrusted data.
 */
export interface McpClient {
  /** Sends `tools/list` (with a cursor for the pages after the first). */
  listTools(params?: { readonly cursor?: string }, options?: McpRequestOptions): Promise<unknown>;
  /** Sends `tools/call`. */
  callTool(params: McpCallToolParams, resultSchema?: undefined, options?: McpRequestOptions): Promise<unknown>;
  /** Sets the handler of a notification: the toolset listens to `notifications/tools/list_changed`. */
  setNotificationHandler?(schema: never, handler: (notification: never) => void | Promise<void>): void;
  /** Removes the handler of a notification. */
  removeNotificationHandler?(method: string): void;
  /** The server's name and version, known once connected. */
  getServerVersion?(): { readonly name: string } | undefined;
}

/** Options of `mcpTools`. */
export interface McpToolsOptions {
  /** A connected client. The toolset does not own it: close it yourself, after `toolset.close()`. */
  readonly client: McpClient;
  /** The bundle's name (`describe()`, `explain()`, errors). Default: `mcp:<the server's name>`. */
  readonly name?: string;
  /** Put before each tool's name as the model sees it (`github_`), so two servers with a tool of one name can be used together. */
  readonly prefix?: string;
  /** Whether a human approves each call of these tools (MW-287): `true`, or a predicate given the input and the call. */
  readonly needsApproval?: NeedsApproval;
  /** Listen to the server's `notifications/tools/list_changed` and list the tools again (default `true`). */
  readonly listChanged?: boolean;
  /** Receives the error of a listing a notification started (default: `console.warn`). */
  readonly onError?: (error: Error) => void;
}

/**
 * The tools of one MCP server as a bundle: `registry.use(toolset)` (or a
 * run's `use`) contributes them as tools of the agent (MW-319 – MW-324).
 */
export interface McpToolset extends Middleware {
  /** The server's tools as the agent lists them, in listed order (frozen): the current list. */
  readonly tools: readonly Tool[];
  /** Lists the tools again and replaces them where the toolset is set up (MW-322). */
  refresh(): Promise<void>;
  /** Stops listening, removes the tools where the toolset is set up; the client stays open (MW-324). */
  close(): void;
}
