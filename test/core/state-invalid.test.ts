import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { failure } from '../assertions';
import { counting, initial, store, Stage } from './state-store';

describe('MiddlewareRegistry.invoke', () => {
  describe('regression: a circular state written back inconsistently', () => {
    interface Circular {
      a: { n: number; back: { a?: unknown } };
    }
    function circular(): Circular {
      const state: Circular = { a: { n: 1, back: {} } };
      state.a.back.a = state.a;
      return state;
    }

    it('rejects the cyclic state with ERR_INVALID_STATE naming where the cycle closes, before any layer runs', async () => {
      const state = circular();
      const writes: unknown[] = [];
      let entered = false;
      const error = await failure(
        new MiddlewareRegistry().run(
          Stage,
          { prompt: 'x' },
          async function* terminal(context, run) {
            entered = true;
            (run.state as Circular).a.n = 2;
            yield context.prompt;
          },
          { state: { get: () => state, set: (next) => writes.push(next) } },
        ),
      );
      const { code, stage, phase, handler } = error as MiddlewareError;
      expect({ code, stage, phase, handler, entered, writes, frozen: Object.isFrozen(state) }).toEqual({
        code: 'ERR_INVALID_STATE',
        stage: 'model',
        phase: 'terminal',
        handler: undefined,
        entered: false,
        writes: [],
        frozen: false,
      });
      expect((error as Error).message).toContain('the value at a.back.a is one that contains it');
    });

    it.each([
      [
        'a Map',
        () => {
          const state = { sessions: new Map<string, unknown>() };
          state.sessions.set('current', { owner: state });
          return state;
        },
        'sessions.current.owner',
      ],
      [
        'a Set',
        () => {
          const state = { members: new Set<unknown>() };
          state.members.add({ group: state.members });
          return state;
        },
        'members.0.group',
      ],
    ])('rejects a cycle through %s too', async (_label, make, path) => {
      const error = await failure(
        new MiddlewareRegistry().run(Stage, { prompt: 'x' }, counting([]) as never, {
          state: { get: (): unknown => make(), set: () => undefined },
        }),
      );
      expect([(error as MiddlewareError).code, (error as Error).message.includes(`the value at ${path} is`)]).toEqual([
        'ERR_INVALID_STATE',
        true,
      ]);
    });

    it('takes a state the library produced as it is on the next invoke: frozen, so not walked again', async () => {
      const { binding, writes } = store(initial());
      const registry = new MiddlewareRegistry();
      await registry.run(Stage, { prompt: 'one' }, counting([]), { state: binding });
      await registry.run(Stage, { prompt: 'two' }, counting([]), { state: binding });
      expect(writes.map((state) => [state.count, state.notes, Object.isFrozen(state)])).toEqual([
        [1, ['one'], true],
        [2, ['one', 'two'], true],
      ]);
    });
  });

  describe('with a state immer cannot draft', () => {
    it.each([
      ['a number', 42, 'number 42'],
      ['a class instance', new (class Connection {})(), 'an instance of Connection'],
    ])('fails with ERR_INVALID_STATE for %s', async (_label, value, described) => {
      let entered = false;
      const error = await failure(
        new MiddlewareRegistry().run(
          Stage,
          { prompt: 'x' },
          async function* terminal() {
            entered = true;
            yield 'x';
          },
          { state: { get: () => value, set: () => undefined } },
        ),
      );
      expect(MiddlewareError.isInstance(error)).toBe(true);
      const { code, stage, phase } = error as MiddlewareError;
      expect({ code, stage, phase }).toEqual({ code: 'ERR_INVALID_STATE', stage: 'model', phase: 'terminal' });
      expect((error as Error).message).toBe(
        `[ERR_INVALID_STATE] Stage "model": state.get() returned ${described}, which immer cannot draft. Keep the state in a plain object, array, Map or Set.`,
      );
      expect(entered).toBe(false);
    });
  });
});
