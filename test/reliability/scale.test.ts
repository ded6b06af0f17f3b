import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareRegistry, type Disposer } from '../../src/core/index';
import { collect } from './fixtures';

const deep = createStage<number, string>('deep');

describe('MiddlewareRegistry.invoke', () => {
  describe('a chain of 1,000 Wrap handlers', () => {
    function registryOf(layers: number, trace?: number[]): MiddlewareRegistry {
      const registry = new MiddlewareRegistry();
      for (let layer = 0; layer < layers; layer++) {
        registry.add(deep.Wrap, async function* passThrough(_context, next) {
          try {
            yield* next();
          } finally {
            trace?.push(layer);
          }
        });
      }
      return registry;
    }

    it('streams every event through all layers without overflowing the stack', async () => {
      const trace: number[] = [];
      const outcome = await collect(
        registryOf(1000, trace).invoke(deep, 7, async function* terminal(context) {
          for (let index = 0; index < 100; index++) yield `${context}:${index}`;
        }),
      );
      expect(outcome).toEqual({ events: Array.from({ length: 100 }, (_unused, index) => `7:${index}`), error: undefined });
      // Innermost layer finishes first.
      expect(trace).toEqual(Array.from({ length: 1000 }, (_unused, index) => 999 - index));
    });

    it('passes a terminal error through all layers unchanged', async () => {
      const failure = new Error('deep failure');
      const outcome = await collect(
        registryOf(1000).invoke(deep, 1, async function* terminal() {
          yield 'only';
          throw failure;
        }),
      );
      expect(outcome.events).toEqual(['only']);
      expect(outcome.error).toBe(failure);
    });

    it('closes all 1,000 layers, innermost first, when the consumer returns', async () => {
      const trace: number[] = [];
      const events = registryOf(1000, trace).invoke(deep, 1, async function* terminal() {
        yield 'first';
        yield 'second';
      });
      await events.next();
      await events.return();
      expect(trace).toEqual(Array.from({ length: 1000 }, (_unused, index) => 999 - index));
    });
  });

  describe('invokes nested in one another', () => {
    const nested = createStage<number, string>('nested');

    /** A terminal that invokes `nested` again until the context reaches 0, where it yields `leaf`. */
    function reentrant(registry: MiddlewareRegistry): (depth: number) => AsyncGenerator<string, void, undefined> {
      return async function* level(depth: number): AsyncGenerator<string, void, undefined> {
        if (depth === 0) {
          yield 'leaf';
          return;
        }
        yield* registry.invoke(nested, depth - 1, level);
      };
    }

    it('resolves run() 1,000 levels deep with one Wrap handler, without overflowing the stack', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(nested.Wrap, async function* forward(_context, next) {
        yield* next();
      });
      await expect(registry.run(nested, 1000, reentrant(registry))).resolves.toBe('leaf');
    });

    it('runs 5,000 levels in hold mode, each level with an Output handler and a state binding', async () => {
      const registry = new MiddlewareRegistry();
      let outputs = 0;
      registry.add(nested.Output, (result) => {
        outputs++;
        return result;
      });
      let state: unknown = { n: 0 };
      const binding = {
        get: (): unknown => state,
        set: (value: unknown): void => {
          state = value;
        },
      };
      const level = async function* level(depth: number): AsyncGenerator<string, void, undefined> {
        if (depth === 0) {
          yield 'leaf';
          return;
        }
        yield* registry.invoke(nested, depth - 1, level, { state: binding });
      };
      await expect(registry.run(nested, 5000, level, { state: binding })).resolves.toBe('leaf');
      expect(outputs).toBe(5001);
    });
  });

  describe('100,000 registrations and removals', () => {
    it('leaves the registry empty, with no leftover ids', () => {
      const registry = new MiddlewareRegistry();
      const stages = Array.from({ length: 10 }, (_unused, index) => createStage<number, string>(`stage${index}`));
      const disposers: Disposer[] = [];
      for (let index = 0; index < 100_000; index++) {
        const stage = stages[index % 10] as (typeof stages)[number];
        const phase = index % 3 === 0 ? stage.Input : index % 3 === 1 ? stage.Wrap : stage.Output;
        disposers.push(
          registry.add(
            phase as typeof stage.Wrap,
            async function* handler(_context, next) {
              yield* next();
            },
            index % 2 === 0 ? { id: `id${index}` } : {},
          ),
        );
        // Remove in a different order from adding: every other one at once, the rest at the end.
        if (index % 2 === 1) (disposers[index - 1] as Disposer)();
      }
      for (const dispose of disposers) dispose();
      expect(stages.map((stage) => registry.describe(stage))).toEqual(stages.map(() => []));
      // Ids are free again: re-adding one without replace does not fail.
      expect(() =>
        registry.add(
          deep.Wrap,
          async function* again(_context, next) {
            yield* next();
          },
          { id: 'id0' },
        ),
      ).not.toThrow();
      expect(registry.remove('id0')).toBe(true);
      expect(registry.describe(deep)).toEqual([]);
    }, 60_000);
  });
});
