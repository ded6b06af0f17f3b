import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareError, MiddlewareRegistry, type StateBinding, type Terminal } from '../../src/index';
import { failure } from '../assertions';

interface Context {
  readonly prompt: string;
}
interface ModelState {
  count: number;
  notes: string[];
  settings: { model: string };
  scratch?: string;
}
const Stage = createStage<Context, string>('model');

function store(initial: ModelState): {
  binding: StateBinding<ModelState>;
  writes: ModelState[];
  reads: () => number;
  current: () => ModelState;
} {
  let current = initial;
  let reads = 0;
  const writes: ModelState[] = [];
  return {
    writes,
    reads: () => reads,
    current: () => current,
    binding: {
      get: () => {
        reads++;
        return current;
      },
      set: (next) => {
        writes.push(next);
        current = next;
      },
    },
  };
}

const initial = (): ModelState => ({ count: 0, notes: [], settings: { model: 'small' }, scratch: 'tmp' });

/** A terminal that records what it saw, then changes its draft. */
function counting(seen: unknown[]): Terminal<Context, string, ModelState> {
  return async function* terminal(context, run) {
    const state = run.state as ModelState;
    seen.push({ prompt: context.prompt, count: state.count, notes: [...state.notes] });
    state.count += 1;
    state.notes.push(context.prompt);
    yield context.prompt;
  };
}

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

  describe('state when nothing may be written', () => {
    it('fails with ERR_INVALID_HANDLER naming the terminal, writing nothing, when the terminal returns no stream', async () => {
      const { binding, writes } = store(initial());
      const error = await failure(
        new MiddlewareRegistry().run(Stage, { prompt: 'x' }, (() => null) as unknown as Terminal<Context, string, ModelState>, {
          state: binding,
        }),
      );
      const { code, stage, phase, handler } = error as MiddlewareError;
      expect({ code, stage, phase, handler, writes }).toEqual({
        code: 'ERR_INVALID_HANDLER',
        stage: 'model',
        phase: 'terminal',
        handler: 'terminal',
        writes: [],
      });
    });

    it('writes nothing when the invoke fails', async () => {
      const { binding, writes } = store(initial());
      const problem = new Error('after the terminal');
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* failsLate(_context, next) {
        yield* next();
        throw problem;
      });
      expect(await failure(registry.run(Stage, { prompt: 'x' }, counting([]), { state: binding }))).toBe(problem);
      expect(writes).toEqual([]);
    });

    it('writes nothing when an Output handler fails', async () => {
      const { binding, writes } = store(initial());
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Output, () => {
        throw new Error('output failed');
      });
      await failure(registry.run(Stage, { prompt: 'x' }, counting([]), { state: binding }));
      expect(writes).toEqual([]);
    });

    it('writes nothing when the invoke is aborted', async () => {
      const { binding, writes } = store(initial());
      const controller = new AbortController();
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Output, (result) => (controller.abort('stop'), result));
      const error = await failure(registry.run(Stage, { prompt: 'x' }, counting([]), { state: binding, signal: controller.signal }));
      expect((error as MiddlewareError).code).toBe('ERR_ABORTED');
      expect(writes).toEqual([]);
    });

    it('writes nothing when the consumer closes the invoke', async () => {
      const { binding, writes } = store(initial());
      const events = new MiddlewareRegistry().invoke(
        Stage,
        { prompt: 'x' },
        async function* terminal(context, run) {
          (run.state as ModelState).count = 5;
          yield 'partial';
          yield context.prompt;
        },
        { state: binding },
      );
      await events.next();
      await events.return();
      expect(writes).toEqual([]);
    });

    it.each([
      [
        'a Wrap handler short-circuits',
        async function* cached() {
          yield 'cached';
        },
      ],
      [
        'the only terminal call is abandoned',
        async function* abandons(_context: Context, next: () => AsyncGenerator<string>) {
          await next().next();
          yield 'own';
        },
      ],
    ])('writes nothing when no terminal call completed because %s', async (_label, handler) => {
      const { binding, writes } = store(initial());
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, handler as never);
      await registry.run(
        Stage,
        { prompt: 'x' },
        async function* terminal(context, run) {
          (run.state as ModelState).count = 5;
          yield 'partial';
          yield context.prompt;
        },
        { state: binding },
      );
      expect(writes).toEqual([]);
    });
  });

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
