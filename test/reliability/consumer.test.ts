import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import {
  abortListeners,
  appendOutput,
  delta,
  gate,
  modelStage,
  recordingState,
  result,
  tracedLayer,
  tracedTerminal,
  type TestEvent,
} from './fixtures';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'setImmediate'] });
});
afterEach(() => {
  expect(vi.getTimerCount()).toBe(0);
  vi.useRealTimers();
});

/** A registry with two traced layers (and an Output handler, so results are held). */
function setup(options: { output?: boolean } = {}) {
  const trace: string[] = [];
  const stage = modelStage();
  const registry = new MiddlewareRegistry();
  registry.add(stage.Wrap, tracedLayer('outer', trace));
  registry.add(stage.Wrap, tracedLayer('inner', trace));
  if (options.output === true) registry.add(stage.Output, appendOutput('+out', trace));
  const state = recordingState({ turns: 0 });
  const getState = vi.spyOn(state, 'get');
  return { trace, stage, registry, state, getState };
}

const CLOSED_TRACE = ['outer:enter', 'inner:enter', 'terminal:enter', 'terminal:finally', 'inner:finally', 'outer:finally'];

/** Makes every call at once and records results in the order they settle. */
async function race<T>(calls: readonly (() => Promise<T>)[]): Promise<{ settled: number[]; outcomes: unknown[] }> {
  const settled: number[] = [];
  const outcomes = await Promise.all(
    calls.map((call, index) =>
      call().then(
        (value) => {
          settled.push(index);
          return { value };
        },
        (error: unknown) => {
          settled.push(index);
          return { error: (error as Error).message };
        },
      ),
    ),
  );
  return { settled, outcomes };
}

describe('MiddlewareRegistry.invoke', () => {
  describe('a consumer that breaks after the first event', () => {
    it('closes every layer once, innermost first, writes no state, and ends the generator', async () => {
      const { trace, stage, registry, state } = setup();
      const events = registry.invoke(stage, 'c', tracedTerminal(trace), { state });
      const seen: TestEvent[] = [];
      for await (const event of events) {
        seen.push(event);
        break;
      }
      expect({ seen, trace, writes: state.writes }).toEqual({ seen: [delta('c0')], trace: CLOSED_TRACE, writes: [] });
      expect(await events.next()).toEqual({ value: undefined, done: true });
    });

    it('never delivers a held result candidate', async () => {
      const { trace, stage, registry, state } = setup({ output: true });
      const terminal = async function* twoResults(): AsyncGenerator<TestEvent, void, undefined> {
        yield result('first');
        yield result('second');
      };
      const events = registry.invoke(stage, 'c', terminal, { state });
      // The first candidate is released only when the second arrives.
      const first = await events.next();
      await events.return();
      expect({ first, trace, writes: state.writes }).toEqual({
        first: { value: result('first'), done: false },
        trace: ['outer:enter', 'inner:enter', 'inner:finally', 'outer:finally'],
        writes: [],
      });
    });
  });

  describe('return() called by hand', () => {
    it('resolves { done: true }, closes innermost first and writes no state', async () => {
      const { trace, stage, registry, state } = setup();
      const events = registry.invoke(stage, 'c', tracedTerminal(trace), { state });
      await events.next();
      await events.next();
      const closed = await events.return();
      expect({ closed, trace, writes: state.writes, after: await events.next() }).toEqual({
        closed: { value: undefined, done: true },
        trace: CLOSED_TRACE,
        writes: [],
        after: { value: undefined, done: true },
      });
    });

    it('runs nothing when called before the first next()', async () => {
      const { trace, stage, registry, state, getState } = setup();
      const terminal = vi.fn(tracedTerminal(trace));
      const events = registry.invoke(stage, 'c', terminal, { state });
      expect(await events.return()).toEqual({ value: undefined, done: true });
      expect(await events.next()).toEqual({ value: undefined, done: true });
      expect({ trace, calls: terminal.mock.calls.length, reads: getState.mock.calls.length, writes: state.writes }).toEqual({
        trace: [],
        calls: 0,
        reads: 0,
        writes: [],
      });
    });

    it('works through await using', async () => {
      const { trace, stage, registry } = setup();
      {
        await using events = registry.invoke(stage, 'c', tracedTerminal(trace));
        await events.next();
      }
      expect(trace).toEqual(CLOSED_TRACE);
    });
  });

  describe('throw() called by hand', () => {
    it('closes every layer without throwing into them, then rejects with the very error given', async () => {
      const { trace, stage, registry, state } = setup();
      const caught: unknown[] = [];
      registry.add(stage.Wrap, async function* catching(_context, next) {
        try {
          yield* next();
        } catch (error) {
          caught.push(error);
          yield result('recovered');
        }
      });
      const events = registry.invoke(stage, 'c', tracedTerminal(trace), { state });
      await events.next();
      const given = new Error('consumer gave up');
      const rejected = await events.throw(given).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(rejected).toBe(given);
      expect({ caught, trace, writes: state.writes, after: await events.next() }).toEqual({
        caught: [],
        trace: CLOSED_TRACE,
        writes: [],
        after: { value: undefined, done: true },
      });
    });

    it('rejects with the error and runs nothing when called before the first next()', async () => {
      const { trace, stage, registry } = setup();
      const events = registry.invoke(stage, 'c', tracedTerminal(trace));
      const given = new Error('never started');
      await expect(events.throw(given)).rejects.toBe(given);
      expect(trace).toEqual([]);
    });
  });

  describe('a consumer that stops iterating without closing', () => {
    it('leaves no listener on the signal and no timer behind', async () => {
      const { trace, stage, registry, state } = setup();
      const controller = new AbortController();
      const events = registry.invoke(stage, 'c', tracedTerminal(trace), { signal: controller.signal, state });
      await events.next();
      // Abandoned here: nothing but the generator object refers to the running chain.
      expect({ listeners: abortListeners(controller.signal), timers: vi.getTimerCount(), trace, writes: state.writes }).toEqual({
        listeners: 0,
        timers: 0,
        trace: ['outer:enter', 'inner:enter', 'terminal:enter'],
        writes: [],
      });
    });
  });

  describe('two consumers racing next() on one generator', () => {
    async function* native(trace: string[]): AsyncGenerator<TestEvent, void, undefined> {
      yield* tracedTerminal(trace, 2)('c');
    }

    it('queues the calls and settles them in call order, exactly as a native async generator does', async () => {
      const { stage } = setup();
      const registry = new MiddlewareRegistry();
      const libraryTrace: string[] = [];
      const nativeTrace: string[] = [];
      const library = registry.invoke(stage, 'c', tracedTerminal(libraryTrace, 2));
      const reference = native(nativeTrace);
      const plan = (events: AsyncGenerator<TestEvent, void, undefined>) => [
        () => events.next(),
        () => events.next(),
        () => events.return(),
        () => events.next(),
      ];
      const fromLibrary = await race(plan(library));
      const fromNative = await race(plan(reference));
      expect(fromLibrary).toEqual(fromNative);
      expect(fromLibrary).toEqual({
        settled: [0, 1, 2, 3],
        outcomes: [
          { value: { value: delta('c0'), done: false } },
          { value: { value: delta('c1'), done: false } },
          { value: { value: undefined, done: true } },
          { value: { value: undefined, done: true } },
        ],
      });
      expect(libraryTrace).toEqual(nativeTrace);
    });

    it('rejects only the call that met the error; the queued ones then see the end', async () => {
      const registry = new MiddlewareRegistry();
      const stage = modelStage();
      const failing = async function* failing(): AsyncGenerator<TestEvent, void, undefined> {
        yield delta('one');
        throw new Error('broken stream');
      };
      const library = registry.invoke(stage, 'c', failing);
      const reference = failing();
      const plan = (events: AsyncGenerator<TestEvent, void, undefined>) => [() => events.next(), () => events.next(), () => events.next()];
      const fromLibrary = await race(plan(library));
      expect(fromLibrary).toEqual(await race(plan(reference)));
      expect(fromLibrary).toEqual({
        settled: [0, 1, 2],
        outcomes: [
          { value: { value: delta('one'), done: false } },
          { error: 'broken stream' },
          { value: { value: undefined, done: true } },
        ],
      });
    });

    it('lets a return() made during a pending next() wait for it, then close', async () => {
      const { trace, stage, registry } = setup();
      const slow = gate();
      const terminal = async function* slowTerminal(): AsyncGenerator<TestEvent, void, undefined> {
        trace.push('terminal:enter');
        try {
          await slow.promise;
          yield delta('late');
          yield result('never pulled');
        } finally {
          trace.push('terminal:finally');
        }
      };
      const events = registry.invoke(stage, 'c', terminal);
      const pulled = events.next();
      const closed = events.return();
      slow.open();
      expect({ pulled: await pulled, closed: await closed, trace }).toEqual({
        pulled: { value: delta('late'), done: false },
        closed: { value: undefined, done: true },
        trace: CLOSED_TRACE,
      });
    });
  });
});
