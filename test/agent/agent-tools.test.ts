import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, type Middleware } from '../../src/core/index';
import { Agent, ExecuteToolStage, InvokeModelStage, ToolsKey, resolveTools, type AgentView, type Tool } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn } from '../../src/testing/index';

/** A bundle named `name` contributing each tool. */
function contributing(name: string, ...tools: Tool[]): Middleware {
  return {
    name,
    setup: (registrar) => {
      tools.forEach((tool) => registrar.provide(ToolsKey, tool));
    },
  };
}

/** The code, stage and phase of what `action` threw. */
function thrown(action: () => unknown): Record<string, unknown> {
  try {
    action();
  } catch (error) {
    if (!MiddlewareError.isInstance(error)) throw error;
    return { code: error.code, stage: error.stage, phase: error.phase };
  }
  return { code: 'none' };
}

/** The code, stage and phase of a run's rejection. */
async function rejected(run: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await run;
  } catch (error) {
    if (!MiddlewareError.isInstance(error)) throw error;
    return { code: error.code, stage: error.stage, phase: error.phase };
  }
  return { code: 'none' };
}

const lookup = new ScriptedTool({ name: 'lookup' });
const clock = new ScriptedTool({ name: 'clock' });

describe('ToolsKey', () => {
  describe('given something that is not a tool', () => {
    it.each<[string, unknown]>([
      ['no spec', { run: () => 'x' }],
      ['an empty name', { spec: { name: '', description: '', inputSchema: {} } }],
      ['a run that is not a function', { spec: { name: 'x', description: '', inputSchema: {} }, run: 'go' }],
    ])('fails the bundle with ERR_INVALID_OPTIONS for %s', (_label, value) => {
      const registry = new MiddlewareRegistry();
      expect(thrown(() => registry.use(contributing('bad', value as Tool)))).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'executeTool',
        phase: 'register',
      });
      expect(registry.contributions(ToolsKey)).toEqual([]);
    });
  });
});

describe('resolveTools', () => {
  describe('for a framework of its own', () => {
    it('lists the own tools first, then those contributed, with frozen copies of the specs', () => {
      const parent = new MiddlewareRegistry();
      parent.use(contributing('shared', clock));
      const registry = parent.child();
      registry.use(contributing('local', lookup));
      const own: Tool = { spec: { name: 'own', description: 'Its own.', inputSchema: {} }, run: () => 'x' };
      const resolved = resolveTools(registry, [own]);
      expect([
        resolved.tools,
        [...resolved.byName.keys()],
        resolved.specs,
        Object.isFrozen(resolved.specs[0]),
        resolved.specs[0] === own.spec,
        Object.isFrozen(own.spec),
      ]).toEqual([[own, clock, lookup], ['own', 'clock', 'lookup'], [own.spec, clock.spec, lookup.spec], true, false, false]);
    });

    it('leaves out contributions deeper than maxDepth', () => {
      const parent = new MiddlewareRegistry();
      parent.use(contributing('shared', clock));
      const registry = parent.child();
      registry.use(contributing('local', lookup));
      expect(resolveTools(registry, [], { maxDepth: 0 }).specs.map((spec) => spec.name)).toEqual(['lookup']);
    });

    it('refuses a contributed tool with the name of an own one, naming the bundle', () => {
      const registry = new MiddlewareRegistry();
      registry.use(contributing('kit', new ScriptedTool({ name: 'lookup' })));
      let message = '';
      try {
        resolveTools(registry, [lookup]);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toEqual(
        '[ERR_DUPLICATE_ID] Tool "lookup" is one of the agent\'s own tools, and bundle "kit" provides a tool of that name to the registry the agent runs on. The model calls tools by name, so names must be unique: rename one of them, or leave one out.',
      );
    });
  });
});

describe('Agent', () => {
  describe('with a registry whose bundle contributes a tool of one of its own names', () => {
    it('is refused by new Agent()', () => {
      const registry = new MiddlewareRegistry();
      registry.use(contributing('kit', new ScriptedTool({ name: 'lookup' })));
      expect(thrown(() => new Agent({ model: new ScriptedModel([]), tools: [lookup], registry }))).toEqual({
        code: 'ERR_DUPLICATE_ID',
        stage: 'executeTool',
        phase: 'register',
      });
    });
  });

  describe('runs with their own bundles', () => {
    it.each<[string, unknown]>([
      ['a string', 'kit'],
      ['an object', { name: 'kit', setup: () => undefined }],
    ])('refuses options.use that is %s, leaving the agent idle', async (_label, use) => {
      const agent = new Agent({ model: new ScriptedModel([textTurn('ok')]) });
      expect(await rejected(agent.invoke('a', { use: use as never }))).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'agentStream',
        phase: undefined,
      });
      expect((await agent.invoke('b')).stopReason).toEqual('endTurn');
    });

    it("sit inside the agent's handlers and are gone after the run", async () => {
      const registry = new MiddlewareRegistry();
      const seen: string[] = [];
      registry.add(InvokeModelStage.Wrap, async function* outer(_context, next) {
        seen.push('outer');
        yield* next();
      });
      const perRun: Middleware = {
        name: 'perRun',
        setup: (registrar) =>
          void registrar.add(InvokeModelStage.Wrap, async function* inner(_context, next) {
            seen.push('inner');
            yield* next();
          }),
      };
      const agent = new Agent({ model: new ScriptedModel([textTurn('one'), textTurn('two')]), registry });
      await agent.invoke('a', { use: [perRun] });
      await agent.invoke('b');
      expect([seen, registry.describe(InvokeModelStage).map((entry) => entry.name)]).toEqual([['outer', 'inner', 'outer'], ['outer']]);
    });
  });

  describe('options that shape the tool list', () => {
    it.each<[string, Record<string, unknown>]>([
      ['inheritTools that is not a boolean', { inheritTools: 'yes' }],
      ['a parent without a toolUseId', { parent: { name: 'boss' } }],
      ['a parent with an empty name', { parent: { name: '', toolUseId: 't1' } }],
    ])('refuses %s', (_label, options) => {
      expect(thrown(() => new Agent({ model: new ScriptedModel([]), ...options }))).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'agentStream',
        phase: undefined,
      });
    });
  });

  describe('the view of runs with contributed tools', () => {
    it('is one object while the contributions stay the same, and a new one once they change', async () => {
      const registry = new MiddlewareRegistry();
      const views: AgentView[] = [];
      registry.add(ExecuteToolStage.Input, (context) => context);
      registry.add(InvokeModelStage.Input, (context) => (views.push(context.agent as AgentView), context));
      const dispose = registry.use(contributing('kit', lookup));
      const agent = new Agent({
        model: new ScriptedModel([textTurn('1'), textTurn('2'), textTurn('3')]),
        registry,
        parent: { name: 'boss', toolUseId: 't9' },
      });
      await agent.invoke('a');
      await agent.invoke('b');
      dispose();
      await agent.invoke('c');
      expect([
        views[0] === views[1],
        views[1] === views[2],
        views.map((view) => view.tools.map((spec) => spec.name)),
        views[2]?.parent,
        Object.isFrozen(views[0]),
      ]).toEqual([true, false, [['lookup'], ['lookup'], []], { name: 'boss', toolUseId: 't9' }, true]);
    });
  });
});
