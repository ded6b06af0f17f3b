/**
 * `mapRegistrar`: a registrar that registers what a mapping makes of each
 * handler (the test kit's `runStage` observes a bundle's handlers with it),
 * and passes instrumentations and contributions through unchanged.
 */
import { describe, expect, it } from 'vitest';
import { createContributionKey, MiddlewareRegistry, type AddOptions, type Target } from '../../src/core/index';
import { mapRegistrar, type HandlerMapping } from '../../src/core/bundle';
import { ModelStage as Stage, echo as terminal, type PromptContext as Context } from '../fixtures';

const Notes = createContributionKey<string>('test.notes');

describe('mapRegistrar', () => {
  describe('add', () => {
    it('registers the handler and options the mapping returns, and hands the mapping what setup gave', async () => {
      const registry = new MiddlewareRegistry();
      const seen: [Target, unknown, AddOptions | undefined][] = [];
      const original = (context: Context): Context => context;
      const mapping: HandlerMapping = (target, handler, options) => {
        seen.push([target, handler, options]);
        return [(context: Context) => ({ prompt: `${context.prompt}+mapped` }), { name: 'mapped', order: 1 }];
      };
      registry.use({
        name: 'kit',
        setup: (registrar) => void mapRegistrar(registrar, mapping).add(Stage.Input, original, { name: 'own' }),
      });
      expect([
        seen,
        registry.describe(Stage).map((entry) => [entry.name, entry.order, entry.bundle]),
        await registry.run(Stage, { prompt: 'x' }, terminal),
      ]).toEqual([[[Stage.Input, original, { name: 'own' }]], [['mapped', 1, 'kit']], 'x+mapped']);
    });

    it('returns the disposer of the mapped registration', () => {
      const registry = new MiddlewareRegistry();
      registry.use({
        name: 'kit',
        setup(registrar) {
          mapRegistrar(registrar, (_target, handler, options) => [handler, options]).add(Stage.Input, (context) => context)();
        },
      });
      expect(registry.describe(Stage)).toEqual([]);
    });
  });

  describe('instrument and provide', () => {
    it('pass through unchanged and return their disposers', async () => {
      const registry = new MiddlewareRegistry();
      const stages: string[] = [];
      const disposers: (() => void)[] = [];
      registry.use({
        name: 'kit',
        setup(registrar) {
          const mapped = mapRegistrar(registrar, () => {
            throw new Error('no handler is added');
          });
          disposers.push(mapped.instrument({ name: 'seen', invoke: (info) => void stages.push(info.stage.name) }));
          disposers.push(mapped.provide(Notes, 'kept'));
          mapped.provide(Notes, 'left');
        },
      });
      await registry.run(Stage, { prompt: 'x' }, terminal);
      const before = registry.contributions(Notes).map((entry) => entry.value);
      for (const dispose of disposers) dispose();
      await registry.run(Stage, { prompt: 'x' }, terminal);
      expect([stages, before, registry.contributions(Notes).map((entry) => entry.value)]).toEqual([['model'], ['kept', 'left'], ['left']]);
    });
  });
});
