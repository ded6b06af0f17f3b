import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, registration, type Middleware, type MiddlewareWarning } from '../../src/core/index';
import { retry } from '../../src/middleware/index';
import { ModelStage as Stage, OtherStage as Other, echo as terminal, passThrough } from '../fixtures';

/** A registry whose warnings are collected. */
function collecting(): { readonly registry: MiddlewareRegistry; readonly warnings: MiddlewareWarning[] } {
  const warnings: MiddlewareWarning[] = [];
  return { registry: new MiddlewareRegistry({ onWarning: (warning) => warnings.push(warning) }), warnings };
}

describe('MiddlewareRegistry', () => {
  describe('one handler function registered twice on a stage and phase', () => {
    it('runs it at both places and warns once, naming both', async () => {
      const { registry, warnings } = collecting();
      const seen: string[] = [];
      const counted = async function* counted(_context: unknown, next: () => AsyncGenerator<string, void, undefined>) {
        seen.push('counted');
        yield* next();
      };
      registry.add(Stage.Wrap, counted);
      registry.add(Stage.Wrap, counted, { name: 'again' });
      await expect(registry.run(Stage, { prompt: 'x' }, terminal)).resolves.toBe('x');
      expect(seen).toEqual(['counted', 'counted']);
      expect(warnings).toEqual([
        {
          code: 'WARN_DUPLICATE_HANDLER',
          stage: 'model',
          phase: 'wrap',
          handler: 'counted',
          places: ['"counted" (registry.add, position 1)', '"again" (registry.add, position 2)'],
          message:
            'The same wrap handler function of stage "model" is registered twice, as "counted" (registry.add, position 1) and as "again" (registry.add, position 2), and runs at both places (a retry registered twice retries its own retries). Register it once; if both are meant, give each registration an id.',
        },
      ]);
      expect([Object.isFrozen(warnings[0]), Object.isFrozen((warnings[0] as { places: unknown }).places)]).toEqual([true, true]);
    });

    it('warns once per resolution: a second invoke of the unchanged registry reports nothing again', async () => {
      const { registry, warnings } = collecting();
      registry.add(Stage.Wrap, passThrough);
      registry.add(Stage.Wrap, passThrough);
      await registry.run(Stage, { prompt: 'x' }, terminal);
      await registry.run(Stage, { prompt: 'y' }, terminal);
      expect(warnings.map((warning) => warning.code)).toEqual(['WARN_DUPLICATE_HANDLER']);
    });

    it('pairs each later registration with the first', () => {
      const { registry, warnings } = collecting();
      for (const name of ['a', 'b', 'c']) registry.add(Stage.Wrap, passThrough, { name });
      registry.describe(Stage);
      expect(warnings.map((warning) => (warning.code === 'WARN_DUPLICATE_HANDLER' ? warning.places : []))).toEqual([
        ['"a" (registry.add, position 1)', '"b" (registry.add, position 2)'],
        ['"a" (registry.add, position 1)', '"c" (registry.add, position 3)'],
      ]);
    });

    it('says nothing when either registration has an id', () => {
      const { registry, warnings } = collecting();
      registry.add(Stage.Wrap, passThrough);
      registry.add(Stage.Wrap, passThrough, { id: 'meant' });
      registry.describe(Stage);
      expect(warnings).toEqual([]);
    });

    it('says nothing for the same function on two stages', () => {
      const { registry, warnings } = collecting();
      registry.add(Stage.Wrap, passThrough);
      registry.add(Other.Wrap, passThrough);
      registry.describe(Stage);
      registry.describe(Other);
      expect(warnings).toEqual([]);
    });

    it('names a bundle, a parent registry and the invoke as places', async () => {
      const { registry: parent, warnings } = collecting();
      const bundle: Middleware = { name: 'guard', setup: (registrar) => registrar.add(Stage.Wrap, passThrough) };
      parent.use(bundle);
      const child = parent.child();
      await child.run(Stage, { prompt: 'x' }, terminal, { use: [registration(Stage.Wrap, passThrough)] });
      expect(warnings.map((warning) => (warning.code === 'WARN_DUPLICATE_HANDLER' ? warning.places : []))).toEqual([
        ['"passThrough" (bundle "guard" of the parent registry, position 1)', '"passThrough" (the invoke\'s use option, position 2)'],
      ]);
    });

    it('names a registry further up by how many levels up it is', () => {
      const { registry: root, warnings } = collecting();
      root.add(Stage.Wrap, passThrough);
      const grandchild = root.child().child();
      grandchild.add(Stage.Wrap, passThrough);
      grandchild.describe(Stage);
      expect(warnings.map((warning) => (warning.code === 'WARN_DUPLICATE_HANDLER' ? warning.places : []))).toEqual([
        ['"passThrough" (registry.add of an ancestor registry (2 levels up), position 1)', '"passThrough" (registry.add, position 2)'],
      ]);
    });
  });

  describe('a retry() added twice', () => {
    it('retries its own retries, 3 × 3 attempts, and is reported', async () => {
      const { registry, warnings } = collecting();
      const twice = retry({ attempts: 3, backoff: () => 0 });
      registry.add(Stage.Wrap, twice);
      registry.add(Stage.Wrap, twice);
      let calls = 0;
      const failure = new Error('always');
      await expect(
        registry.run(Stage, { prompt: 'x' }, async function* failing() {
          calls++;
          yield await Promise.reject(failure);
        }),
      ).rejects.toBe(failure);
      expect([calls, warnings.map((warning) => warning.handler)]).toEqual([9, ['retry']]);
    });
  });
});
