import { describe, expect, it } from 'vitest';
import type { LayerGenerator } from '../../src/core/layer';
import { StateIsolation, StateRecorder } from '../../src/core/state';
import { collect, failure } from '../assertions';

async function* yieldAll(...events: unknown[]): LayerGenerator {
  for (const event of events) yield event;
}

describe('StateRecorder', () => {
  function isolation(): { isolation: StateIsolation<{ count: number }>; writes: { count: number }[] } {
    const writes: { count: number }[] = [];
    return { writes, isolation: new StateIsolation({ get: () => ({ count: 0 }), set: (next) => writes.push(next) }, 'model') };
  }

  it('records the draft when the terminal call completes', async () => {
    const { isolation: state, writes } = isolation();
    const draft = state.draft();
    draft.count = 1;
    expect(await collect(new StateRecorder(yieldAll('a'), state as StateIsolation<unknown>, draft))).toEqual(['a']);
    state.writeBack();
    expect(writes).toEqual([{ count: 1 }]);
  });

  it('records nothing when the terminal call is closed early', async () => {
    const { isolation: state, writes } = isolation();
    const draft = state.draft();
    draft.count = 1;
    const events = new StateRecorder(yieldAll('a', 'b'), state as StateIsolation<unknown>, draft);
    await events.next();
    await events.return(undefined);
    state.writeBack();
    expect(writes).toEqual([]);
  });

  it('records the draft when a terminal call catches a thrown error and still completes', async () => {
    const { isolation: state, writes } = isolation();
    const draft = state.draft();
    draft.count = 2;
    async function* forgiving(): LayerGenerator {
      try {
        yield 'a';
      } catch {
        yield 'recovered';
      }
    }
    const events = new StateRecorder(forgiving(), state as StateIsolation<unknown>, draft);
    await events.next();
    expect(await events.throw(new Error('into the terminal'))).toEqual({ value: 'recovered', done: false });
    expect(await events.next()).toEqual({ value: undefined, done: true });
    state.writeBack();
    expect(writes).toEqual([{ count: 2 }]);
  });

  it('records nothing when a thrown error ends the terminal call', async () => {
    const { isolation: state, writes } = isolation();
    const draft = state.draft();
    draft.count = 3;
    const events = new StateRecorder(yieldAll('a'), state as StateIsolation<unknown>, draft);
    await events.next();
    const thrown = new Error('into the terminal');
    await expect(events.throw(thrown)).rejects.toBe(thrown);
    state.writeBack();
    expect(writes).toEqual([]);
  });

  it('records a completed call once, however often it is pulled after its end', async () => {
    const { isolation: state, writes } = isolation();
    const draft = state.draft();
    draft.count = 4;
    const events = new StateRecorder(yieldAll(), state as StateIsolation<unknown>, draft);
    expect([await events.next(), await events.next()]).toEqual([
      { value: undefined, done: true },
      { value: undefined, done: true },
    ]);
    state.writeBack();
    expect(writes).toEqual([{ count: 4 }]);
  });

  describe('around a hand-written terminal iterator', () => {
    function handWritten(next: () => unknown, extra: Record<string, unknown> = {}): LayerGenerator {
      const iterator = { [Symbol.asyncIterator]: () => iterator, next, return: () => ({ value: undefined, done: true }), ...extra };
      return iterator as unknown as LayerGenerator;
    }

    it('regression: accepts a next() that returns plain results instead of promises, and records the completed call', async () => {
      const { isolation: state, writes } = isolation();
      const draft = state.draft();
      draft.count = 5;
      const results = [
        { value: 'a', done: false },
        { value: undefined, done: true },
      ];
      expect(
        await collect(
          new StateRecorder(
            handWritten(() => results.shift()),
            state as StateIsolation<unknown>,
            draft,
          ),
        ),
      ).toEqual(['a']);
      state.writeBack();
      expect(writes).toEqual([{ count: 5 }]);
    });

    it('turns a next() that throws synchronously into a rejection, recording nothing', async () => {
      const { isolation: state, writes } = isolation();
      const thrown = new Error('sync');
      const events = new StateRecorder(
        handWritten(() => {
          throw thrown;
        }),
        state as StateIsolation<unknown>,
        state.draft(),
      );
      expect(await failure(events.next())).toBe(thrown);
      state.writeBack();
      expect(writes).toEqual([]);
    });

    it('closes a terminal without throw() and passes the thrown error on', async () => {
      const { isolation: state } = isolation();
      const closed: string[] = [];
      const events = new StateRecorder(
        handWritten(() => ({ value: 'a', done: false }), {
          return: () => (closed.push('closed'), { value: undefined, done: true }),
          throw: undefined,
        }),
        state as StateIsolation<unknown>,
        state.draft(),
      );
      const thrown = new Error('into the terminal');
      expect([await failure(events.throw(thrown)), closed]).toEqual([thrown, ['closed']]);
    });

    it('passes the thrown error on even when closing a terminal without throw() fails', async () => {
      const { isolation: state } = isolation();
      const events = new StateRecorder(
        handWritten(() => ({ value: 'a', done: false }), {
          return: () => {
            throw new Error('closing failed');
          },
          throw: undefined,
        }),
        state as StateIsolation<unknown>,
        state.draft(),
      );
      const thrown = new Error('into the terminal');
      expect(await failure(events.throw(thrown))).toBe(thrown);
    });

    it('turns a return() that throws synchronously into a rejection', async () => {
      const { isolation: state } = isolation();
      const thrown = new Error('return failed');
      const events = new StateRecorder(
        handWritten(() => ({ value: 'a', done: false }), {
          return: () => {
            throw thrown;
          },
        }),
        state as StateIsolation<unknown>,
        state.draft(),
      );
      expect(await failure(events.return(undefined))).toBe(thrown);
    });
  });

  it('is its own async iterator and closes on asyncDispose', async () => {
    const { isolation: state, writes } = isolation();
    const events = new StateRecorder(yieldAll('a', 'b'), state as StateIsolation<unknown>, state.draft());
    expect(events[Symbol.asyncIterator]()).toBe(events);
    await events.next();
    await events[Symbol.asyncDispose]();
    expect(await events.next()).toEqual({ value: undefined, done: true });
    state.writeBack();
    expect(writes).toEqual([]);
  });
});
