import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, type Middleware } from '../../../src/core/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../../src/testing/index';
import {
  Agent,
  AgentStreamStage,
  CompressContextStage,
  defineMiddleware,
  ExecuteToolStage,
  InvokeModelStage,
  ToolsKey,
  TurnStage,
  type MiddlewareDefinition,
} from '../../../src/agent/index';

/** The fields of a thrown error that MW-316 fixes, and whether its message contains each of `parts`. */
function refusal(definition: unknown, ...parts: string[]): unknown {
  try {
    defineMiddleware(definition as MiddlewareDefinition);
  } catch (error) {
    const { code, phase, handler, message } = error as MiddlewareError;
    return { genuine: MiddlewareError.isInstance(error), code, phase, handler, mentions: parts.filter((part) => message.includes(part)) };
  }
  return 'accepted';
}

const refused = (...parts: string[]): unknown => ({
  genuine: true,
  code: 'ERR_INVALID_OPTIONS',
  phase: 'register',
  handler: 'defineMiddleware',
  mentions: parts,
});

/** The id, name, bundle and ordering options of each entry of `stage`'s chain, in chain order. */
function chainOf(registry: MiddlewareRegistry, stage: Parameters<MiddlewareRegistry['describe']>[0]): unknown[] {
  return registry.describe(stage).map(({ phase, id, name, bundle, order, before, after, next }) => ({
    phase,
    id,
    name,
    bundle,
    order,
    before,
    after,
    next,
  }));
}

const entry = (phase: string, id: string, extra: object = {}): unknown => ({
  phase,
  id,
  name: id,
  bundle: 'audit',
  order: 0,
  before: [],
  after: [],
  next: 'many',
  ...extra,
});

describe('defineMiddleware', () => {
  describe('given hooks on every stage', () => {
    it('registers each on its stage and phase with the id <name>.<key>.<phase>, named after it', () => {
      const registry = new MiddlewareRegistry();
      registry.use(
        defineMiddleware({
          name: 'audit',
          run: { input: (context) => context, output: (result) => result },
          turn: {
            wrap: async function* (_context, next) {
              yield* next();
            },
          },
          model: {
            input: (context) => context,
            wrap: async function* (_context, next) {
              yield* next();
            },
            output: (result) => result,
          },
          tool: { output: (result) => result },
          compress: { input: (context) => context },
        }),
      );
      expect([
        chainOf(registry, AgentStreamStage),
        chainOf(registry, TurnStage),
        chainOf(registry, InvokeModelStage),
        chainOf(registry, ExecuteToolStage),
        chainOf(registry, CompressContextStage),
      ]).toEqual([
        [entry('input', 'audit.run.input'), entry('output', 'audit.run.output')],
        [entry('wrap', 'audit.turn.wrap')],
        [entry('input', 'audit.model.input'), entry('output', 'audit.model.output'), entry('wrap', 'audit.model.wrap')],
        [entry('output', 'audit.tool.output')],
        [entry('input', 'audit.compress.input')],
      ]);
    });
  });

  describe('given hooks with options', () => {
    it('registers them with those options, a given id and name replacing the derived ones', () => {
      const registry = new MiddlewareRegistry();
      registry.use(
        defineMiddleware({
          name: 'audit',
          model: {
            wrap: {
              handler: async function* (_context, next) {
                yield* next();
              },
              order: -5,
              before: ['x'],
              after: ['y'],
              next: 'once',
            },
            input: { handler: (context) => context, id: 'own', name: 'shown' },
          },
        }),
      );
      expect(chainOf(registry, InvokeModelStage)).toEqual([
        entry('input', 'own', { name: 'shown' }),
        entry('wrap', 'audit.model.wrap', { order: -5, before: ['x'], after: ['y'], next: 'once' }),
      ]);
    });

    it('orders them against other handlers by id: constraints first, then order', () => {
      const registry = new MiddlewareRegistry();
      registry.add(
        InvokeModelStage.Wrap,
        async function* logging(_context, next) {
          yield* next();
        },
        { id: 'logging' },
      );
      registry.use(
        defineMiddleware({
          name: 'limit',
          model: {
            wrap: {
              handler: async function* (_context, next) {
                yield* next();
              },
              before: ['logging'],
            },
          },
        }),
      );
      registry.add(
        InvokeModelStage.Wrap,
        async function* inner(_context, next) {
          yield* next();
        },
        { after: ['limit.model.wrap'], order: -100 },
      );
      expect(registry.describe(InvokeModelStage).map((described) => described.name)).toEqual(['limit.model.wrap', 'inner', 'logging']);
    });

    it('lets a hook replace a handler registered under its id', () => {
      const registry = new MiddlewareRegistry();
      registry.add(
        InvokeModelStage.Input,
        function first(context) {
          return context;
        },
        { id: 'limit.model.input' },
      );
      registry.use(defineMiddleware({ name: 'limit', model: { input: { handler: (context) => context, replace: true } } }));
      expect(registry.describe(InvokeModelStage).map(({ name, bundle }) => [name, bundle])).toEqual([['limit.model.input', 'limit']]);
    });
  });

  describe('given two definitions of one name in one registry', () => {
    it('fails the second use with ERR_DUPLICATE_ID and keeps the first', () => {
      const registry = new MiddlewareRegistry();
      const define = (): Middleware => defineMiddleware({ name: 'limit', model: { input: (context) => context } });
      registry.use(define());
      let code: unknown;
      try {
        registry.use(define());
      } catch (error) {
        code = (error as MiddlewareError).code;
      }
      expect([code, registry.describe(InvokeModelStage).length]).toEqual(['ERR_DUPLICATE_ID', 1]);
    });
  });

  describe('given a bad option value in a hook', () => {
    it('fails the whole use with the registration error and registers nothing', () => {
      const registry = new MiddlewareRegistry();
      const bundle = defineMiddleware({
        name: 'limit',
        model: { input: (context) => context, output: { handler: (result) => result, order: Number.NaN } },
      });
      let error: unknown;
      try {
        registry.use(bundle);
      } catch (caught) {
        error = caught;
      }
      const { code, stage, phase, handler } = error as MiddlewareError;
      expect([{ code, stage, phase, handler }, registry.describe(InvokeModelStage)]).toEqual([
        { code: 'ERR_INVALID_OPTIONS', stage: 'invokeModel', phase: 'output', handler: 'limit.model.output' },
        [],
      ]);
    });
  });

  describe('given tools, bundles to use and a setup', () => {
    it('provides the tools, then sets up the bundles, then calls setup, all removed with the bundle', () => {
      const registry = new MiddlewareRegistry();
      const calls: string[] = [];
      const clock = new ScriptedTool({ name: 'clock' });
      const inner: Middleware = {
        name: 'inner',
        setup: (registrar) => {
          calls.push('inner');
          registrar.add(ExecuteToolStage.Input, function innerInput(context) {
            return context;
          });
        },
      };
      const dispose = registry.use(
        defineMiddleware({
          name: 'kit',
          tools: [clock],
          use: [inner],
          setup: (registrar) => {
            calls.push('setup');
            registrar.add(ExecuteToolStage.Input, function last(context) {
              return context;
            });
          },
        }),
      );
      const before = [
        registry.contributions(ToolsKey).map(({ id, bundle }) => [id, bundle]),
        registry.describe(ExecuteToolStage).map(({ name, bundle }) => [name, bundle]),
        calls,
      ];
      dispose();
      expect([before, registry.contributions(ToolsKey).length, registry.describe(ExecuteToolStage).length]).toEqual([
        [
          [['clock', 'kit']],
          [
            ['innerInput', 'kit'],
            ['last', 'kit'],
          ],
          ['inner', 'setup'],
        ],
        0,
        0,
      ]);
    });
  });

  describe('given a definition changed after the call', () => {
    it('registers what the definition held when it was called', () => {
      const definition = { name: 'limit', model: { input: (context: never) => context } } as {
        name: string;
        model: Record<string, unknown>;
      };
      const bundle = defineMiddleware(definition);
      definition.name = 'other';
      definition.model.output = (result: unknown) => result;
      const registry = new MiddlewareRegistry();
      registry.use(bundle);
      expect([bundle.name, registry.describe(InvokeModelStage).map(({ id }) => id)]).toEqual(['limit', ['limit.model.input']]);
    });
  });

  describe('in an agent run', () => {
    it('runs its hooks around the model and tool calls and offers its tools', async () => {
      const seen: string[] = [];
      const registry = new MiddlewareRegistry();
      registry.use(
        defineMiddleware({
          name: 'watch',
          tools: [new ScriptedTool({ name: 'clock', outcomes: [{ value: 'noon' }] })],
          model: {
            input: (context) => {
              seen.push(`model ${context.toolSpecs.map((spec) => spec.name).join(',')}`);
              return context;
            },
          },
          tool: {
            wrap: async function* (context, next) {
              seen.push(`tool ${context.toolUse.name}`);
              yield* next();
            },
          },
        }),
      );
      const model = new ScriptedModel([toolUseTurn([{ name: 'clock', input: {} }]), textTurn('It is noon.')]);
      const result = await new Agent({ model, registry }).invoke('Time?');
      expect([result.stopReason, seen]).toEqual(['endTurn', ['model clock', 'tool clock', 'model clock']]);
    });
  });

  describe('given a malformed definition', () => {
    it.each([
      ['not an object', 'audit', ['must be an object']],
      ['no name', { model: {} }, ['name must be a non-empty string']],
      ['an empty name', { name: '' }, ['name must be a non-empty string']],
      ['an unknown key', { name: 'a', models: {} }, ['"a"', 'models is not a key', 'run, turn, model']],
      ["LangChain's wrapModelCall", { name: 'a', wrapModelCall: () => undefined }, ['wrapModelCall', 'use model.wrap']],
      ["LangChain's beforeAgent", { name: 'a', beforeAgent: () => undefined }, ['beforeAgent', 'use run.input']],
      ["LangChain's contextSchema", { name: 'a', contextSchema: {} }, ['contextSchema', 'invocation state']],
      ['a stage key that is a function', { name: 'a', model: () => undefined }, ['model must be an object { input?, wrap?, output? }']],
      ['an unknown phase', { name: 'a', tool: { before: () => undefined } }, ['tool.before is not a phase']],
      ['a hook that is a string', { name: 'a', model: { wrap: 'retry' } }, ['model.wrap must be a handler']],
      ['a hook object without a handler', { name: 'a', model: { wrap: { order: 1 } } }, ['model.wrap must be a handler']],
      [
        'an unknown hook option',
        { name: 'a', turn: { wrap: { handler: () => undefined, priority: 1 } } },
        ['turn.wrap.priority is not an option'],
      ],
      ['tools that are no array', { name: 'a', tools: {} }, ['tools must be an array']],
      ['a use element that is no bundle', { name: 'a', use: [{ name: 'x' }] }, ['use[0] must be a bundle']],
      ['a setup that is no function', { name: 'a', setup: {} }, ['setup must be a function']],
    ])('refuses %s with ERR_INVALID_OPTIONS naming the path', (_scenario, definition, parts) => {
      expect(refusal(definition, ...parts)).toEqual(refused(...parts));
    });
  });
});
