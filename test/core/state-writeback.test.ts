import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, type StateBinding } from '../../src/core/index';
import { counting, initial, store, Stage, type ModelState } from './state-store';

describe('MiddlewareRegistry.invoke', () => {
  describe('state on success', () => {
    it('writes back the state the terminal produced, deletions included, keeping untouched branches', async () => {
      const { binding, writes } = store(initial());
      const before = binding.get();
      await new MiddlewareRegistry().run(
        Stage,
        { prompt: 'x' },
        async function* terminal(context, run) {
          const state = run.state as ModelState;
          state.count = 7;
          delete state.scratch;
          yield context.prompt;
        },
        { state: binding },
      );
      expect(writes).toEqual([{ count: 7, notes: [], settings: { model: 'small' } }]);
      expect('scratch' in (writes[0] as ModelState)).toBe(false);
      expect((writes[0] as ModelState).settings).toBe(before.settings);
      expect(before).toEqual({ count: 0, notes: [], settings: { model: 'small' }, scratch: 'tmp' });
    });

    it('reads state once, after the Input phase, and writes before the final event is delivered', async () => {
      const trace: string[] = [];
      const binding: StateBinding<ModelState> = {
        get: () => (trace.push('get'), initial()),
        set: () => trace.push('set'),
      };
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Input, (context) => (trace.push('input'), context));
      registry.add(Stage.Wrap, async function* twice(_context, next) {
        trace.push('wrap');
        for await (const _event of next()) trace.push('first attempt');
        yield* next();
      });
      for await (const event of registry.invoke(Stage, { prompt: 'x' }, counting([]), { state: binding })) trace.push(`got ${event}`);
      expect(trace).toEqual(['input', 'get', 'wrap', 'first attempt', 'set', 'got x']);
    });

    it('gives each terminal call a fresh draft of the snapshot', async () => {
      const { binding, writes } = store(initial());
      const seen: unknown[] = [];
      const drafts: unknown[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* retry(_context, next) {
        try {
          yield* next({ prompt: 'first' });
        } catch {
          yield* next({ prompt: 'second' });
        }
      });
      await registry.run(
        Stage,
        { prompt: 'x' },
        async function* terminal(context, run) {
          drafts.push(run.state);
          const state = run.state as ModelState;
          seen.push(state.count);
          state.count += 10;
          if (context.prompt === 'first') throw new Error('failed after changing the draft');
          yield context.prompt;
        },
        { state: binding },
      );
      expect(seen).toEqual([0, 0]);
      // Compared by identity directly: a finished draft is a revoked proxy that matchers cannot inspect.
      expect(drafts.length === 2 && drafts[0] !== drafts[1]).toBe(true);
      expect(writes.map((state) => state.count)).toEqual([10]);
    });

    it('writes back the state of the terminal call that completed last', async () => {
      const { binding, writes } = store(initial());
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* interleave(_context, next) {
        const a = next({ prompt: 'a' });
        const b = next({ prompt: 'b' });
        await a.next();
        await b.next();
        await b.next(); // b completes first
        await a.next(); // a completes last
        yield 'done';
      });
      await registry.run(Stage, { prompt: 'x' }, counting([]), { state: binding });
      expect(writes).toEqual([{ count: 1, notes: ['a'], settings: { model: 'small' }, scratch: 'tmp' }]);
    });

    it('overwrites a set made by a handler during the chain', async () => {
      const { binding, current } = store(initial());
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* meddling(_context, next) {
        binding.set({ count: 99, notes: ['meddled'], settings: { model: 'large' } });
        yield* next();
      });
      await registry.run(Stage, { prompt: 'x' }, counting([]), { state: binding });
      expect(current()).toEqual({ count: 1, notes: ['x'], settings: { model: 'small' }, scratch: 'tmp' });
    });

    it('works with a Set inside a plain state object', async () => {
      let written: { tags: Set<string> } | undefined;
      const binding: StateBinding<{ tags: Set<string> }> = { get: () => ({ tags: new Set(['old']) }), set: (next) => (written = next) };
      await new MiddlewareRegistry().run(
        Stage,
        { prompt: 'x' },
        async function* terminal(context, run) {
          run.state?.tags.add('new');
          yield context.prompt;
        },
        { state: binding },
      );
      expect(written).toEqual({ tags: new Set(['old', 'new']) });
    });

    it('works with a Map as the state', async () => {
      let written: Map<string, number> | undefined;
      const binding: StateBinding<Map<string, number>> = { get: () => new Map([['a', 1]]), set: (next) => (written = next) };
      await new MiddlewareRegistry().run(
        Stage,
        { prompt: 'x' },
        async function* terminal(context, run) {
          run.state?.set('b', 2);
          run.state?.delete('a');
          yield context.prompt;
        },
        { state: binding },
      );
      expect(written).toEqual(new Map([['b', 2]]));
    });
  });

  describe('state isolation from handlers', () => {
    it('freezes the snapshot deeply, so holders of the original cannot change it mid-invoke', async () => {
      const original = initial();
      const { binding } = store(original);
      const attempts: string[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* sneaky(_context, next, run) {
        attempts.push(Object.keys(run).sort().join(','));
        try {
          original.notes.push('sneaked');
        } catch (error) {
          attempts.push((error as Error).constructor.name);
        }
        yield* next();
      });
      await registry.run(Stage, { prompt: 'x' }, counting([]), { state: binding });
      expect(attempts).toEqual(['handler,signal,stage', 'TypeError']);
      expect([Object.isFrozen(original), Object.isFrozen(original.settings)]).toEqual([true, true]);
    });

    it('accepts a state that is already frozen in parts', async () => {
      const settings = Object.freeze({ model: 'small' });
      const { binding, writes } = store({ count: 0, notes: [], settings });
      await new MiddlewareRegistry().run(Stage, { prompt: 'x' }, counting([]), { state: binding });
      expect(writes).toEqual([{ count: 1, notes: ['x'], settings: { model: 'small' } }]);
      expect((writes[0] as ModelState).settings).toBe(settings);
    });
  });
});
