/**
 * One registry's scope (`RegistryScope`): removal releases everything adding
 * took (MW-069), down to the entries of its maps, and leaves the others in the
 * order they were added.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createContributionKey } from '../../src/core/index';
import { createContribution } from '../../src/core/contributions';
import { createRegistration } from '../../src/core/registration';
import { RegistryScope } from '../../src/core/scope';
import { ModelStage as Stage, passThrough } from '../fixtures';

const Notes = createContributionKey<string>('test.notes');

/** What a scope holds, by the sizes of its maps. */
const sizes = (scope: RegistryScope): number[] => [scope.byStage.size, scope.ids.size, scope.provided.size, scope.instrumentations.size];

describe('RegistryScope', () => {
  describe('after everything added to it was removed', () => {
    it('holds no entry for the stage, the id, the key or the instrumentation', () => {
      const scope = new RegistryScope(undefined);
      const disposers = [
        scope.register(createRegistration(Stage.Wrap, passThrough, { id: 'kept' }, undefined, 'test'), 'test'),
        scope.register(
          createRegistration(Stage.Input, (context: unknown) => context, undefined, undefined, 'test'),
          'test',
        ),
        scope.provide(createContribution(Notes, 'note', 'kit')),
        scope.instrument({ name: 'seen', invoke: () => undefined }),
      ];
      const held = sizes(scope);
      for (const dispose of disposers) dispose();
      expect([held, sizes(scope)]).toEqual([
        [1, 1, 1, 1],
        [0, 0, 0, 0],
      ]);
    });

    it('holds no entry for what was replaced and then removed', () => {
      const scope = new RegistryScope(undefined);
      scope.register(createRegistration(Stage.Wrap, passThrough, { id: 'x' }, undefined, 'test'), 'test');
      const dispose = scope.register(
        createRegistration(Stage.Input, (context: unknown) => context, { id: 'x', replace: true }, undefined, 'test'),
        'test',
      );
      const held = sizes(scope);
      dispose();
      expect([held, sizes(scope)]).toEqual([
        [1, 1, 0, 0],
        [0, 0, 0, 0],
      ]);
    });
  });

  describe('a disposer called again after its id went to a new registration', () => {
    it('leaves the new registration and its id in place', () => {
      const scope = new RegistryScope(undefined);
      const add = (options: { name: string; id?: string }): (() => void) =>
        scope.register(createRegistration(Stage.Wrap, passThrough, options, undefined, 'test'), 'test');
      add({ name: 'stays' });
      const dispose = add({ name: 'first', id: 'x' });
      dispose();
      add({ name: 'second', id: 'x' });
      dispose();
      const stored = (scope.byStage.get(Stage) ?? []).map((registration) => registration.name);
      expect({ byId: scope.ids.get('x')?.name, stored }).toEqual({ byId: 'second', stored: ['stays', 'second'] });
    });
  });

  describe('after any mix of adds and removals', () => {
    // A removal of the last registration, of the first, of one in between, of one already removed (a disposer
    // called twice), by disposer and by handler: the stage's registrations must be the model's, in its order.
    it('holds the registrations not removed, in the order they were added', () => {
      const action = fc.oneof(
        fc.constant({ kind: 'add' as const }),
        fc.record({ kind: fc.constant('dispose' as const), pick: fc.nat() }),
        fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
      );
      fc.assert(
        fc.property(fc.array(action, { maxLength: 40 }), (actions) => {
          const scope = new RegistryScope(undefined);
          const handlers: ((context: unknown) => unknown)[] = [];
          const disposers: (() => void)[] = [];
          const model: string[] = [];
          for (const step of actions) {
            if (step.kind === 'add') {
              const name = `h${handlers.length}`;
              const handler = (context: unknown): unknown => context;
              handlers.push(handler);
              disposers.push(scope.register(createRegistration(Stage.Input, handler, { name }, undefined, 'test'), 'test'));
              model.push(name);
            } else if (handlers.length > 0) {
              const index = step.pick % handlers.length;
              const name = `h${index}`;
              const removed =
                step.kind === 'dispose'
                  ? ((disposers[index] as () => void)(), model.includes(name))
                  : scope.removeFirst(Stage, 'input', handlers[index]);
              expect(removed).toBe(model.includes(name));
              if (removed) model.splice(model.indexOf(name), 1);
            }
          }
          const stored = (scope.byStage.get(Stage) ?? []).map((registration) => registration.name);
          expect(stored).toEqual(model);
          // A stage left without registrations has no entry at all (MW-069).
          expect(scope.byStage.has(Stage)).toBe(model.length > 0);
        }),
        { numRuns: 300 },
      );
    });
  });
});
