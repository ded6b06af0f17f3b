/**
 * A server whose tool list changes (MW-322) and closing a toolset (MW-324),
 * against a real `McpServer` that sends `notifications/tools/list_changed`
 * when a tool is registered or removed while connected.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Agent, ToolsKey } from '../../src/agent/index';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { mcpTools, type McpToolset } from '../../src/mcp/index';
import { ScriptedModel, textTurn, toolUseTurn } from '../../src/testing/index';
import { connect, type Connected } from './in-memory-server';

let connected: Connected | undefined;
afterEach(async () => {
  await connected?.close();
  connected = undefined;
});

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/**
 * A server with the tool `a`; `addB()` registers `b` while connected, which notifies the client, and so does the
 * first call of `a`.
 */
async function changingServer(): Promise<Connected & { readonly addB: () => void }> {
  let added = false;
  const addB = (): void => {
    if (added) return;
    added = true;
    connected?.server.registerTool('b', {}, () => text('b'));
  };
  connected = await connect((server) => {
    server.registerTool('a', {}, () => {
      addB();
      return text('a');
    });
  });
  return { ...connected, addB };
}

/** Waits until the toolset lists `count` tools (the listing a notification started has arrived). */
async function listed(toolset: McpToolset, count: number): Promise<void> {
  await vi.waitFor(() => {
    expect(toolset.tools).toHaveLength(count);
  });
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return MiddlewareError.isInstance(error) ? { code: error.code, handler: error.handler } : error;
  }
  return 'no error';
}

describe('mcpTools', () => {
  describe('when the server says its tool list changed', () => {
    it('keeps the list of a run going for all its turns and offers the new list to the next run', async () => {
      const server = await changingServer();
      const toolset = await mcpTools({ client: server.client });
      const registry = new MiddlewareRegistry();
      registry.use(toolset);
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {}, toolUseId: 'a1' }]), textTurn('done'), textTurn('again')]);
      const agent = new Agent({ model, registry });
      // The call of `a` changes the list while the run is going, after the run resolved its tool list.
      const original = toolset.tools[0];
      await agent.invoke('go');
      await listed(toolset, 2);
      await agent.invoke('more');
      expect({
        first: model.calls.map((call) => call.request.toolSpecs.map((spec) => spec.name)),
        contributed: registry.contributions(ToolsKey).map(({ id }) => id),
        replaced: toolset.tools[0] !== original,
      }).toEqual({ first: [['a'], ['a'], ['a', 'b']], contributed: ['a', 'b'], replaced: true });
    });

    it('leaves a registry whose bundle was removed without the tools', async () => {
      const server = await changingServer();
      const toolset = await mcpTools({ client: server.client });
      const registry = new MiddlewareRegistry();
      const dispose = registry.use(toolset);
      dispose();
      server.addB();
      await listed(toolset, 2);
      expect(registry.contributions(ToolsKey)).toEqual([]);
    });

    it('keeps the old tools of a registry where a new name is taken, and reports the refusal to onError', async () => {
      const server = await changingServer();
      const errors: unknown[] = [];
      const toolset = await mcpTools({ client: server.client, onError: (error) => errors.push(error) });
      const registry = new MiddlewareRegistry();
      registry.use(toolset);
      registry.use({
        name: 'mine',
        setup: (registrar) => void registrar.provide(ToolsKey, { spec: { name: 'b', description: '', inputSchema: {} } }),
      });
      server.addB();
      await vi.waitFor(() => {
        expect(errors).toHaveLength(1);
      });
      expect({
        errors: errors.map((error) => (MiddlewareError.isInstance(error) ? error.code : error)),
        contributed: registry.contributions(ToolsKey).map(({ id, bundle }) => `${id} ${bundle}`),
        current: toolset.tools.map((tool) => tool.spec.name),
      }).toEqual({ errors: ['ERR_DUPLICATE_ID'], contributed: ['b mine', 'a mcp:docs'], current: ['a', 'b'] });
    });

    it('does not listen with listChanged false, and lists again on refresh()', async () => {
      const server = await changingServer();
      const toolset = await mcpTools({ client: server.client, listChanged: false });
      server.addB();
      await server.client.listTools();
      const before = toolset.tools.map((tool) => tool.spec.name);
      await toolset.refresh();
      expect({ before, after: toolset.tools.map((tool) => tool.spec.name) }).toEqual({ before: ['a'], after: ['a', 'b'] });
    });
  });

  describe('close()', () => {
    it('removes the tools, stops listening and refuses setup and refresh, leaving the client open', async () => {
      const server = await changingServer();
      const toolset = await mcpTools({ client: server.client });
      const registry = new MiddlewareRegistry();
      registry.use(toolset);
      toolset.close();
      toolset.close();
      server.addB();
      // The notification comes before the answer to this request: a toolset still listening would list again.
      const listedByClient = (await server.client.listTools()).tools.map((tool) => tool.name);
      let setupError: unknown;
      try {
        new MiddlewareRegistry().use(toolset);
      } catch (error) {
        setupError = MiddlewareError.isInstance(error) ? { code: error.code, handler: error.handler } : error;
      }
      expect({
        contributed: registry.contributions(ToolsKey),
        tools: toolset.tools.map((tool) => tool.spec.name),
        listedByClient,
        setupError,
        refreshError: await caught(toolset.refresh()),
      }).toEqual({
        contributed: [],
        tools: ['a'],
        listedByClient: ['a', 'b'],
        setupError: { code: 'ERR_INVALID_OPTIONS', handler: 'mcpTools' },
        refreshError: { code: 'ERR_INVALID_OPTIONS', handler: 'mcpTools' },
      });
    });
  });
});
