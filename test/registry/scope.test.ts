/**
 * One registry's scope (`RegistryScope`): removal releases everything adding
 * took (MW-069), down to the entries of its maps.
 */
import { describe, expect, it } from 'vitest';
import { createContributionKey } from '../../src/index';
import { createContribution } from '../../src/registry/contribution';
import { createRegistration } from '../../src/registry/registration';
import { RegistryScope } from '../../src/registry/scope';
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
});
