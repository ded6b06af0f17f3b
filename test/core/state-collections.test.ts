import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareRegistry, type StateBinding } from '../../src/core/index';

// The first test of its file on purpose: it is the first invoke with a state in a fresh copy of the library.
describe('InvokeOptions.state', () => {
  describe('a Map as the first state a fresh copy of the library drafts', () => {
    it('gives the terminal a draft it can change, and writes the changed Map back', async () => {
      const stage = createStage<{ key: string }, string>('mapped');
      let written: Map<string, number> | undefined;
      const state: StateBinding<Map<string, number>> = { get: () => new Map([['a', 1]]), set: (next) => (written = next) };
      await new MiddlewareRegistry().run(
        stage,
        { key: 'b' },
        async function* terminal(context, run) {
          (run.state as Map<string, number>).set(context.key, 2);
          yield 'done';
        },
        { state },
      );
      expect(written).toEqual(
        new Map([
          ['a', 1],
          ['b', 2],
        ]),
      );
    });
  });
});
