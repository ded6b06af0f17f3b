/**
 * `mcpTools`: the tools of one Model Context Protocol server as a bundle of
 * contributed tools (MW-319 – MW-324), kept current when the server says its
 * list changed.
 */
import { createContributionKey, MiddlewareError, type Disposer, type Registrar } from '../core/index';
import { ToolsKey } from '../agent/index';
import type { Tool } from '../agent/types/tool';
import { isObject } from '../util/is-object';
import { invalidMcpOptions } from './errors';
import type { McpClient, McpToolset, McpToolsOptions } from './mcp-types';
import { listTools, type ToolListSource } from './tool-list';

/** The notification a server sends when its tool list changed. */
const LIST_CHANGED = 'notifications/tools/list_changed';

/** Marks one `setup` of a toolset in the scope it ran in. */
interface SetupMark {
  /** Unique among every toolset's setups. */
  readonly id: string;
}

/**
 * One mark per setup, under a key of its own: providing a mark's id again
 * fails with `ERR_DUPLICATE_ID` exactly while the scope still holds the mark,
 * which is how a refresh tells a scope that still has the toolset from one
 * whose bundle was removed, without a reference to the registry (MW-054).
 */
const SetupsKey = createContributionKey<SetupMark>('staged-middleware.mcp.setups', { identify: (mark) => mark.id });

let setups = 0;

/** One setup of the toolset: the registrar it ran with, and what it provided there. */
interface Placement {
  readonly registrar: Registrar;
  readonly mark: SetupMark;
  readonly removeMark: Disposer;
  tools: readonly Tool[];
  removeTools: readonly Disposer[];
}

/** The options `mcpTools` keeps, each read once. */
interface Settings extends ToolListSource {
  readonly name: string;
  readonly listChanged: boolean;
  readonly onError: ((error: Error) => void) | undefined;
}

/**
 * The tools of the MCP server `options.client` is connected to, as a bundle
 * that contributes them to the agent (MW-319): listed like any tool, called
 * through ExecuteToolStage (MW-320), so guards, approvals, errors as
 * answers, retries and tracing apply; listed again when the server says its
 * list changed (MW-322). The client stays yours: close it after `close()`.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (rejects) for malformed options; `ERR_MCP_CONNECTION` or
 *   `ERR_MCP_PROTOCOL` (rejects) when the tools cannot be listed (MW-323).
 * @example
 * ```ts
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
 *
 * const client = new Client({ name: 'support-agent', version: '1.0.0' });
 * await client.connect(new StdioClientTransport({ command: 'node', args: ['docs-server.js'] }));
 * const docs = await mcpTools({ client, prefix: 'docs_' });
 * const agent = new Agent({ model: new ScriptedModel([textTurn('hi')]), registry: new MiddlewareRegistry() });
 * await agent.invoke('How do I rotate a key?', { use: [docs] });
 * docs.close();
 * await client.close();
 * ```
 */
export async function mcpTools(options: McpToolsOptions): Promise<McpToolset> {
  const settings = await readOptions(options);
  const { client } = settings;
  let current: readonly Tool[] = Object.freeze([]);
  let closed = false;
  // Read through a call after an await: close() may run while a listing waits.
  const isClosed = (): boolean => closed;
  const placements = new WeakMap<SetupMark, Placement>();
  // Weakly held, so a scope dropped without removing the bundle (a run's own `use`) takes its placement with it.
  const marks = new Set<WeakRef<SetupMark>>();

  const closedError = (): MiddlewareError =>
    invalidMcpOptions(`the toolset "${settings.name}" is closed; make a new one with mcpTools() to use the server's tools again`);

  /** Makes `tools` the current list and replaces the tools of every scope still holding the toolset; the errors of those that refused them. */
  function apply(tools: readonly Tool[]): Error[] {
    current = tools;
    const errors: Error[] = [];
    for (const reference of marks) {
      const mark = reference.deref();
      const placement = mark === undefined ? undefined : placements.get(mark);
      if (mark === undefined || placement === undefined || !holds(placement)) {
        marks.delete(reference);
        if (mark !== undefined) placements.delete(mark);
        continue;
      }
      const error = replace(placement, tools);
      if (error !== undefined) errors.push(error);
    }
    return errors;
  }

  async function refresh(): Promise<void> {
    if (closed) throw closedError();
    const tools = await listTools(settings);
    if (isClosed()) throw closedError();
    const [error] = apply(tools);
    if (error !== undefined) throw error;
  }

  let listing = false;
  let again = false;
  // Set by a notification while a listing waits.
  const notifiedMeanwhile = (): boolean => again;
  /** A notification: one listing at a time, and one more after it when notifications came meanwhile. */
  async function listAgain(): Promise<void> {
    if (listing) {
      again = true;
      return;
    }
    listing = true;
    try {
      do {
        again = false;
        let tools: readonly Tool[];
        try {
          tools = await listTools(settings);
        } catch (error) {
          if (!isClosed()) report(error as Error);
          continue;
        }
        if (!isClosed()) for (const error of apply(tools)) report(error);
      } while (notifiedMeanwhile() && !isClosed());
    } finally {
      listing = false;
    }
  }

  function report(error: Error): void {
    if (settings.onError === undefined) console.warn(error);
    else settings.onError(error);
  }

  const subscribed = settings.listChanged && typeof client.setNotificationHandler === 'function';
  if (subscribed) await subscribe(client, () => void listAgain());
  try {
    current = await listTools(settings);
  } catch (error) {
    if (subscribed) unsubscribe(client);
    throw error;
  }

  const toolset: McpToolset = {
    name: settings.name,
    get tools() {
      return current;
    },
    setup(registrar: Registrar): void {
      if (closed) throw closedError();
      const mark: SetupMark = Object.freeze({ id: `${settings.name}#${String(++setups)}` });
      const removeMark = registrar.provide(SetupsKey, mark);
      const tools = current;
      const removeTools = tools.map((tool) => registrar.provide(ToolsKey, tool));
      placements.set(mark, { registrar, mark, removeMark, tools, removeTools });
      marks.add(new WeakRef(mark));
    },
    refresh,
    close(): void {
      if (closed) return;
      closed = true;
      if (subscribed) unsubscribe(client);
      for (const reference of marks) {
        const mark = reference.deref();
        const placement = mark === undefined ? undefined : placements.get(mark);
        if (placement === undefined) continue;
        for (const remove of placement.removeTools) remove();
        placement.removeMark();
      }
      marks.clear();
    },
  };
  return Object.freeze(toolset);
}

/** Whether the scope of `placement` still holds its mark, so its bundle was not removed (see {@link SetupsKey}). */
function holds(placement: Placement): boolean {
  try {
    placement.registrar.provide(SetupsKey, placement.mark)();
    return false;
  } catch (error) {
    if (MiddlewareError.isInstance(error) && error.code === 'ERR_DUPLICATE_ID') return true;
    throw error;
  }
}

/** Replaces the tools of one scope by `tools`, all or nothing: on a refusal the old ones are back, and the refusal is returned. */
function replace(placement: Placement, tools: readonly Tool[]): Error | undefined {
  for (const remove of placement.removeTools) remove();
  const added: Disposer[] = [];
  try {
    for (const tool of tools) added.push(placement.registrar.provide(ToolsKey, tool));
  } catch (error) {
    for (const remove of added) remove();
    placement.removeTools = placement.tools.map((tool) => placement.registrar.provide(ToolsKey, tool));
    return error as Error;
  }
  placement.tools = tools;
  placement.removeTools = added;
  return undefined;
}

/** Sets the client's handler of the list-changed notification; the client reads the method from a zod schema. */
async function subscribe(client: McpClient, onChange: () => void): Promise<void> {
  // Loaded here, not with the entry point: zod adds properties to the global object (MW-204), and only a toolset that listens needs it.
  const { z } = await import('zod');
  const schema = z.object({ method: z.literal(LIST_CHANGED) });
  (client.setNotificationHandler as unknown as (schema: unknown, handler: () => void) => void).call(client, schema, onChange);
}

function unsubscribe(client: McpClient): void {
  if (typeof client.removeNotificationHandler === 'function') client.removeNotificationHandler(LIST_CHANGED);
}

/** The options, each read once and checked (MW-319). */
async function readOptions(options: McpToolsOptions): Promise<Settings> {
  if (!isObject(options)) throw invalidMcpOptions(`options must be an object with a connected client, got ${typeof options}`);
  const { client, name, prefix, needsApproval, listChanged, onError } = options as Partial<McpToolsOptions>;
  if (!isObject(client) || typeof client.listTools !== 'function' || typeof client.callTool !== 'function') {
    throw invalidMcpOptions(
      'options.client must be a connected MCP client with listTools and callTool (the Client of @modelcontextprotocol/sdk, after await client.connect(transport))',
    );
  }
  for (const [key, value] of [
    ['name', name],
    ['prefix', prefix],
  ] as const) {
    if (value !== undefined && (typeof value !== 'string' || value.length === 0)) {
      throw invalidMcpOptions(`options.${key} must be a non-empty string when given`);
    }
  }
  if (listChanged !== undefined && typeof listChanged !== 'boolean')
    throw invalidMcpOptions('options.listChanged must be a boolean when given');
  if (onError !== undefined && typeof onError !== 'function') throw invalidMcpOptions('options.onError must be a function when given');
  if (needsApproval !== undefined && typeof needsApproval !== 'boolean' && typeof needsApproval !== 'function') {
    throw invalidMcpOptions('options.needsApproval must be a boolean or a function when given');
  }
  const server = serverName(client);
  return {
    client,
    server,
    name: name ?? `mcp:${server}`,
    prefix: prefix ?? '',
    needsApproval,
    listChanged: listChanged ?? true,
    onError,
  };
}

/** The server's name as the client learned it when it connected, else `server`. */
function serverName(client: McpClient): string {
  const version = typeof client.getServerVersion === 'function' ? client.getServerVersion() : undefined;
  const name = isObject(version) ? (version as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name.length > 0 ? name : 'server';
}
