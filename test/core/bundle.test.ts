import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, type Instrumentation, type Middleware, type Registrar } from '../../src/core/index';
import { caught } from '../assertions';
import { ModelStage as Stage, OtherStage as Other, echo as terminal, passThrough } from '../fixtures';

const names = (registry: MiddlewareRegistry, stage = Stage): string[] =>
  registry.describe(stage).map((entry) => `${entry.phase}:${entry.name}`);

describe('MiddlewareRegistry.use', () => {
  describe('with a bundle over several stages', () => {
    it('registers every handler and removes them all with one disposer, twice harmlessly', async () => {
      const registry = new MiddlewareRegistry();
      const observed: string[] = [];
      const instrumentation: Instrumentation = {
        name: 'count',
        invoke: (info) => {
          observed.push(info.stage.name);
          return undefined;
        },
      };
      const bundle: Middleware = {
        name: 'guard',
        setup(registrar) {
          registrar.add(Stage.Input, function trim(context) {
            return { prompt: context.prompt.trim() };
          });
          registrar.add(Other.Output, function keep(result) {
            return result;
          });
          registrar.add(Stage, passThrough);
          registrar.instrument(instrumentation);
        },
      };
      registry.add(Stage.Wrap, passThrough, { name: 'own' });
      const dispose = registry.use(bundle);
      expect([names(registry), names(registry, Other)]).toEqual([['input:trim', 'wrap:own', 'wrap:passThrough'], ['output:keep']]);
      await expect(registry.run(Stage, { prompt: ' hi ' }, terminal)).resolves.toBe('hi');
      expect(observed).toEqual(['model']);
      dispose();
      dispose();
      expect([names(registry), names(registry, Other)]).toEqual([['wrap:own'], []]);
      await expect(registry.run(Stage, { prompt: ' hi ' }, terminal)).resolves.toBe(' hi ');
      expect(observed).toEqual(['model']);
    });

    it('names the bundle in describe()', () => {
      const registry = new MiddlewareRegistry();
      registry.use({ name: 'audit', setup: (registrar) => registrar.add(Stage.Wrap, passThrough, { id: 'audit.wrap' }) });
      expect(registry.describe(Stage)).toEqual([
        {
          phase: 'wrap',
          position: 0,
          name: 'passThrough',
          id: 'audit.wrap',
          order: 0,
          before: [],
          after: [],
          next: 'many',
          source: 'bundle',
          bundle: 'audit',
          depth: 0,
        },
      ]);
    });

    it('lets a single disposer from the registrar remove one handler of the bundle', () => {
      const registry = new MiddlewareRegistry();
      registry.use({
        name: 'pair',
        setup(registrar) {
          registrar.add(Stage.Wrap, passThrough, { name: 'kept' });
          const dispose = registrar.add(Stage.Wrap, passThrough, { name: 'dropped' });
          dispose();
        },
      });
      expect(names(registry)).toEqual(['wrap:kept']);
    });
  });

  describe('with a registrar kept after setup returned', () => {
    it('counts what it registers later as part of the bundle, removed by the bundle disposer', () => {
      const registry = new MiddlewareRegistry();
      let kept: Registrar | undefined;
      const dispose = registry.use({
        name: 'lazy',
        setup(registrar) {
          registrar.add(Stage.Input, function early(context) {
            return context;
          });
          kept = registrar;
        },
      });
      kept?.add(Stage.Input, function late(context) {
        return context;
      });
      expect(registry.describe(Stage).map((entry) => `${entry.name}/${entry.source}/${entry.bundle}`)).toEqual([
        'early/bundle/lazy',
        'late/bundle/lazy',
      ]);
      dispose();
      expect(names(registry)).toEqual([]);
    });
  });

  describe('with a setup that throws', () => {
    it('removes whatever it registered and passes the error through unchanged', async () => {
      const registry = new MiddlewareRegistry();
      const observed: string[] = [];
      const failure = new Error('setup failed');
      registry.add(Stage.Wrap, passThrough, { name: 'before' });
      let thrown: unknown;
      try {
        registry.use({
          name: 'broken',
          setup(registrar) {
            registrar.add(Stage.Input, (context) => context, { id: 'half' });
            registrar.instrument({ name: 'spy', invoke: () => (observed.push('observed'), undefined) });
            throw failure;
          },
        });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBe(failure);
      expect(names(registry)).toEqual(['wrap:before']);
      await registry.run(Stage, { prompt: 'x' }, terminal);
      expect(observed).toEqual([]);
      // The id is free again.
      registry.add(Stage.Input, (context) => context, { id: 'half', name: 'reuse' });
      expect(names(registry)).toEqual(['input:reuse', 'wrap:before']);
    });

    it('is atomic when a registration inside setup is rejected', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, passThrough, { id: 'taken' });
      const error = caught(() =>
        registry.use({
          name: 'clash',
          setup(registrar) {
            registrar.add(Stage.Output, (result) => result, { name: 'first' });
            registrar.add(Stage.Wrap, passThrough, { id: 'taken', name: 'second' });
          },
        }),
      );
      expect({ code: error.code, handler: error.handler }).toEqual({ code: 'ERR_DUPLICATE_ID', handler: 'second' });
      expect(error.message).toContain('bundle "clash": the id "taken" is already registered, so');
      expect(names(registry)).toEqual(['wrap:passThrough']);
    });
  });

  describe('with something that is not a bundle', () => {
    it.each([
      ['null', null, 'got null'],
      ['a function', function setup() {}, 'got a function (setup)'],
      ['a function carrying name and setup', Object.assign(function bundled() {}, { setup() {} }), 'got a function (bundled)'],
      ['a bundle without setup', { name: 'x' }, 'got a plain object'],
      ['a bundle without a name', { setup() {} }, 'got a plain object'],
    ])('rejects %s with ERR_INVALID_HANDLER', (_label, value, got) => {
      const error = caught(() => new MiddlewareRegistry().use(value as never));
      expect({ code: error.code, phase: error.phase }).toEqual({ code: 'ERR_INVALID_HANDLER', phase: 'register' });
      expect(error.message).toBe(`[ERR_INVALID_HANDLER] registry.use expects a bundle { name: string, setup(registrar) }, ${got}.`);
    });
  });
});
