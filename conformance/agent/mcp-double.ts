/**
 * The scripted MCP client of the agent cases (`mcp` bundles, MW-319 –
 * MW-324): a plain object with the methods of an MCP client, answering from
 * the case's server description without any MCP library, so a port can build
 * the same double from the words of spec/README.md.
 */
import type { Middleware } from '../../src/core/index';
import { mcpTools, type McpClient, type McpRequestOptions } from '../../src/mcp/index';
import type { AgentCaseBundle } from '../cases/agent-handlers';
import { later, type World } from './doubles';

type McpServerSpec = NonNullable<AgentCaseBundle['server']>;
type McpAnswer = NonNullable<McpServerSpec['listError']>;

/** The error of a JSON-RPC error answer, as `@modelcontextprotocol/sdk`'s `McpError` carries it. */
function rpcError(code: number, message: string): Error {
  const error = new Error(`MCP error ${String(code)}: ${message}`);
  error.name = 'McpError';
  return Object.assign(error, { code });
}

/** What a scripted answer that is no result rejects with, or undefined for a result. */
function rejection(answer: McpAnswer): Error | undefined {
  if (answer.rpcError !== undefined) return rpcError(answer.rpcError.code, answer.rpcError.message);
  if (answer.disconnected !== undefined) return new Error(answer.disconnected);
  return undefined;
}

const OK = { content: [{ type: 'text', text: 'ok' }] };

/** A scripted client of the server `spec` describes, observing into `world`. */
export function scriptedMcpClient(world: World, spec: McpServerSpec): McpClient {
  let tools: readonly unknown[] = spec.tools;
  let calls = 0;
  const answered = new Map<string, number>();
  let onListChanged: (() => void) | undefined;
  const client: McpClient = {
    listTools(params?: { readonly cursor?: string }): Promise<unknown> {
      world.observations.push(`mcp list ${params?.cursor ?? 'first'}`);
      const failure = spec.listError === undefined ? undefined : rejection(spec.listError);
      if (failure !== undefined) return Promise.reject(failure);
      const start = params?.cursor === undefined ? 0 : Number(params.cursor);
      const end = spec.pageSize === undefined ? tools.length : Math.min(tools.length, start + spec.pageSize);
      return Promise.resolve({ tools: tools.slice(start, end), ...(end < tools.length ? { nextCursor: String(end) } : {}) });
    },
    async callTool(params, _resultSchema, options?: McpRequestOptions): Promise<unknown> {
      world.observations.push(`mcp call ${params.name} ${JSON.stringify(params.arguments)}`);
      const script = spec.answers?.[params.name] ?? [];
      const index = answered.get(params.name) ?? 0;
      answered.set(params.name, index + 1);
      const answer: McpAnswer = script[Math.min(index, script.length - 1)] ?? {};
      if (answer.cancelLater !== undefined) later(world, answer.cancelLater);
      try {
        if (answer.hang === true) {
          const signal = options?.signal;
          await new Promise<void>((resolve) => {
            if (signal?.aborted === true) resolve();
            else
              signal?.addEventListener(
                'abort',
                () => {
                  resolve();
                },
                { once: true },
              );
          });
          world.observations.push(`mcp cancelled ${params.name}`);
          throw rpcError(-32001, String(signal?.reason));
        }
        const failure = rejection(answer);
        if (failure !== undefined) throw failure;
        return answer.result ?? OK;
      } finally {
        calls++;
        if (spec.changeAfterCalls === calls) {
          tools = spec.nextTools ?? [];
          world.observations.push(onListChanged === undefined ? 'mcp changed, no handler' : 'mcp changed');
          onListChanged?.();
        }
      }
    },
    setNotificationHandler(_schema: never, handler: (notification: never) => void | Promise<void>): void {
      onListChanged = () => void handler({ method: 'notifications/tools/list_changed' } as never);
    },
    removeNotificationHandler(): void {
      onListChanged = undefined;
    },
    ...(spec.name === undefined ? {} : { getServerVersion: () => ({ name: spec.name as string, version: '1.0.0' }) }),
  };
  return client;
}

/** The toolset of an `mcp` bundle: `mcpTools` over the scripted client, with the options the bundle gives. */
export async function buildMcpBundle(world: World, spec: AgentCaseBundle): Promise<Middleware> {
  const toolset = await mcpTools({
    client: scriptedMcpClient(world, spec.server ?? { tools: [] }),
    ...(spec.name === undefined ? {} : { name: spec.name }),
    ...(spec.prefix === undefined ? {} : { prefix: spec.prefix }),
    ...(spec.needsApproval === undefined ? {} : { needsApproval: spec.needsApproval }),
  });
  if (spec.closed === true) toolset.close();
  return toolset;
}
