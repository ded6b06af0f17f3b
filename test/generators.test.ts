import { describe, expect, it } from 'vitest';
import { asGenerator, isThenable, nativeNext, requireACall, StateRecorder, type LayerGenerator } from '../src/generators';
import { StateIsolation } from '../src/state';
import { caught, collect, failure, fields } from './assertions';

async function* yieldAll(...events: unknown[]): LayerGenerator {
  for (const event of events) yield event;
}

describe('asGenerator', () => {
  describe('with an async generator', () => {
    it('returns the very same generator', () => {
      const generator = yieldAll('a');
      expect(asGenerator(generator, 'model', 'wrap', 'own')).toBe(generator);
    });
  });

  describe('with an async iterable that is not a generator', () => {
    it('adapts it into a native generator that delivers the same events', async () => {
      const iterable = { [Symbol.asyncIterator]: () => yieldAll('a', 'b') };
      const adapted = asGenerator(iterable, 'model', 'terminal', 'terminal');
      expect(adapted.next).toBe(nativeNext);
      expect(await collect(adapted)).toEqual(['a', 'b']);
    });
  });

  describe('with something that cannot stream', () => {
    it.each([
      ['undefined', undefined, 'not an async iterable'],
      ['a promise', Promise.resolve('x'), 'plain async function'],
      ['an array', ['x'], 'synchronous iterable'],
      ['a plain object', { next: () => undefined }, 'not an async iterable'],
    ])('rejects %s with ERR_INVALID_HANDLER and a hint', (_label, produced, hint) => {
      const error = caught(() => asGenerator(produced, 'model', 'wrap', 'broken'));
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'wrap', handler: 'broken' });
      expect(error.message).toContain(hint);
    });
  });
});

describe('isThenable', () => {
  it.each([
    ['a promise', Promise.resolve(1), true],
    ['an object with a then method', { then: () => undefined }, true],
    ['an object whose then is not a function', { then: 1 }, false],
    ['null', null, false],
    ['a function with a then method', Object.assign(() => undefined, { then: () => undefined }), false],
    ['a string', 'then', false],
  ])('tells whether %s must be awaited', (_label, value, expected) => {
    expect(isThenable(value)).toBe(expected);
  });
});

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
    expect([await events.next(), await events.next()]).toEqual([{ value: undefined, done: true }, { value: undefined, done: true }]);
    state.writeBack();
    expect(writes).toEqual([{ count: 4 }]);
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

describe('requireACall', () => {
  const culprit = { stage: 'model', phase: 'wrap', handler: 'lazy' } as const;

  it('passes the events through when next() was called', async () => {
    expect(await collect(requireACall(yieldAll('a'), { calls: 1 }, () => culprit))).toEqual(['a']);
  });

  it('fails with ERR_NEXT_POLICY when the layer finishes without calling next()', async () => {
    const error = await failure(collect(requireACall(yieldAll('own'), { calls: 0 }, () => culprit)));
    expect(fields(error)).toEqual({ code: 'ERR_NEXT_POLICY', stage: 'model', phase: 'wrap', handler: 'lazy' });
  });
});
