import { describe, expect, it } from 'vitest';
import { asGenerator, nativeNext, pullFrom, ReleasingChain, requireACall, StateRecorder, type LayerGenerator } from '../../src/invoke/generators';
import { StateIsolation } from '../../src/invoke/state';
import { caught, collect, failure, fields } from '../assertions';

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

  describe('with an async iterator that has next() but no return()', () => {
    it('adapts it, and closing the adapter ends it without calling anything on the iterator', async () => {
      const source = yieldAll('a', 'b', 'c');
      const iterator = { [Symbol.asyncIterator]: () => iterator, next: () => source.next() };
      const adapted = asGenerator(iterator, 'model', 'terminal', 'terminal');
      expect([adapted === (iterator as unknown), adapted.next === nativeNext]).toEqual([false, true]);
      expect(await adapted.next()).toEqual({ value: 'a', done: false });
      expect(await adapted.return(undefined)).toEqual({ value: undefined, done: true });
      expect([await adapted.next(), await source.next()]).toEqual([
        { value: undefined, done: true },
        { value: 'b', done: false },
      ]);
    });

    it('calls the return() of the iterator an adapted iterable gives, when the adapter is closed', async () => {
      const closed: string[] = [];
      const source = yieldAll('a', 'b');
      const iterable = {
        [Symbol.asyncIterator]: () => ({ next: () => source.next(), return: () => (closed.push('return'), Promise.resolve({ value: undefined, done: true as const })) }),
      };
      const adapted = asGenerator(iterable, 'model', 'terminal', 'terminal');
      await adapted.next();
      await adapted.return(undefined);
      expect(closed).toEqual(['return']);
    });
  });

  describe('with something that cannot stream', () => {
    it.each([
      ['undefined', undefined, 'not an async iterable'],
      ['null', null, 'not an async iterable'],
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

describe('pullFrom', () => {
  it('returns the promise of a native generator as it is', () => {
    const generator = yieldAll('a');
    const pulled = pullFrom(generator);
    expect(pulled).toBeInstanceOf(Promise);
  });

  it.each([
    ['a plain result', () => ({ value: 'a', done: false }), { value: 'a', done: false }],
    ['a thenable that is not a promise', () => ({ then: (resolve: (value: unknown) => void) => resolve({ value: 'b', done: false }) }), { value: 'b', done: false }],
  ])('turns %s into a promise of it', async (_label, next, expected) => {
    expect(await pullFrom({ next } as unknown as LayerGenerator)).toEqual(expected);
  });

  it('turns a synchronous throw into a rejection with the very error', async () => {
    const thrown = new Error('thrown by next');
    let synchronous = false;
    let pulled: Promise<unknown> | undefined;
    try {
      pulled = pullFrom({ next: () => { throw thrown; } } as unknown as LayerGenerator);
    } catch {
      synchronous = true;
    }
    expect([synchronous, await failure(pulled as Promise<unknown>)]).toEqual([false, thrown]);
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

  describe('around a hand-written terminal iterator', () => {
    function handWritten(next: () => unknown, extra: Record<string, unknown> = {}): LayerGenerator {
      const iterator = { [Symbol.asyncIterator]: () => iterator, next, return: () => ({ value: undefined, done: true }), ...extra };
      return iterator as unknown as LayerGenerator;
    }

    it('regression: accepts a next() that returns plain results instead of promises, and records the completed call', async () => {
      const { isolation: state, writes } = isolation();
      const draft = state.draft();
      draft.count = 5;
      const results = [{ value: 'a', done: false }, { value: undefined, done: true }];
      expect(await collect(new StateRecorder(handWritten(() => results.shift()), state as StateIsolation<unknown>, draft))).toEqual(['a']);
      state.writeBack();
      expect(writes).toEqual([{ count: 5 }]);
    });

    it('turns a next() that throws synchronously into a rejection, recording nothing', async () => {
      const { isolation: state, writes } = isolation();
      const thrown = new Error('sync');
      const events = new StateRecorder(handWritten(() => { throw thrown; }), state as StateIsolation<unknown>, state.draft());
      expect(await failure(events.next())).toBe(thrown);
      state.writeBack();
      expect(writes).toEqual([]);
    });

    it('closes a terminal without throw() and passes the thrown error on', async () => {
      const { isolation: state } = isolation();
      const closed: string[] = [];
      const events = new StateRecorder(
        handWritten(() => ({ value: 'a', done: false }), { return: () => (closed.push('closed'), { value: undefined, done: true }), throw: undefined }),
        state as StateIsolation<unknown>,
        state.draft(),
      );
      const thrown = new Error('into the terminal');
      expect([await failure(events.throw(thrown)), closed]).toEqual([thrown, ['closed']]);
    });

    it('passes the thrown error on even when closing a terminal without throw() fails', async () => {
      const { isolation: state } = isolation();
      const events = new StateRecorder(
        handWritten(() => ({ value: 'a', done: false }), { return: () => { throw new Error('closing failed'); }, throw: undefined }),
        state as StateIsolation<unknown>,
        state.draft(),
      );
      const thrown = new Error('into the terminal');
      expect(await failure(events.throw(thrown))).toBe(thrown);
    });

    it('turns a return() that throws synchronously into a rejection', async () => {
      const { isolation: state } = isolation();
      const thrown = new Error('return failed');
      const events = new StateRecorder(handWritten(() => ({ value: 'a', done: false }), { return: () => { throw thrown; } }), state as StateIsolation<unknown>, state.draft());
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

describe('ReleasingChain', () => {
  function owner(): { forgotten: ReleasingChain[]; owner: { forget(chain: ReleasingChain): void } } {
    const forgotten: ReleasingChain[] = [];
    return { forgotten, owner: { forget: (chain) => forgotten.push(chain) } };
  }
  function link(): { released: number[]; link: { release(): void } } {
    const released: number[] = [];
    return { released, link: { release: () => released.push(1) } };
  }

  it('forwards the events and forgets itself, releasing its link once, when the chain completes', async () => {
    const { forgotten, owner: chainOwner } = owner();
    const { released, link: chainLink } = link();
    const chain = new ReleasingChain(yieldAll('a', 'b'), chainOwner, chainLink);
    expect(await chain.next()).toEqual({ value: 'a', done: false });
    const early = forgotten.length;
    expect(await collect(chain)).toEqual(['b']);
    await chain.next();
    expect({ early, forgotten: forgotten.map((item) => item === chain), released }).toEqual({ early: 0, forgotten: [true], released: [1] });
  });

  it('forgets itself when the chain throws, passing the very error on', async () => {
    const { forgotten, owner: chainOwner } = owner();
    const thrown = new Error('inner failure');
    async function* failing(): LayerGenerator {
      yield 'a';
      throw thrown;
    }
    const chain = new ReleasingChain(failing(), chainOwner, undefined);
    await chain.next();
    expect([await failure(chain.next()), forgotten.length]).toEqual([thrown, 1]);
  });

  it('forgets itself when closed with return()', async () => {
    const { forgotten, owner: chainOwner } = owner();
    const chain = new ReleasingChain(yieldAll('a', 'b'), chainOwner, undefined);
    await chain.next();
    expect([await chain.return(undefined), forgotten.length]).toEqual([{ value: undefined, done: true }, 1]);
  });

  it('stays remembered when closing it yields again (a finally that yields): it has not ended', async () => {
    const { forgotten, owner: chainOwner } = owner();
    async function* stubborn(): LayerGenerator {
      try {
        yield 'a';
      } finally {
        yield 'cleanup';
      }
    }
    const chain = new ReleasingChain(stubborn(), chainOwner, undefined);
    await chain.next();
    expect([await chain.return(undefined), forgotten.length]).toEqual([{ value: 'cleanup', done: false }, 0]);
    expect([await chain.next(), forgotten.length]).toEqual([{ value: undefined, done: true }, 1]);
  });

  it('accepts a hand-written chain whose next() returns plain results, and one without throw()', async () => {
    const { forgotten, owner: chainOwner } = owner();
    const results = [{ value: 'a', done: false }, { value: undefined, done: true }];
    const closed: string[] = [];
    const iterator = { [Symbol.asyncIterator]: () => iterator, next: () => results.shift(), return: () => (closed.push('return'), { value: undefined, done: true }) };
    const chain = new ReleasingChain(iterator as unknown as LayerGenerator, chainOwner, undefined);
    expect(await collect(chain)).toEqual(['a']);
    const second = new ReleasingChain(iterator as unknown as LayerGenerator, chainOwner, undefined);
    const thrown = new Error('thrown in');
    expect([await failure(second.throw(thrown)), closed, forgotten.length]).toEqual([thrown, ['return'], 2]);
  });

  it('throws into a chain that has throw(): a chain that recovers and completes is forgotten then', async () => {
    const { forgotten, owner: chainOwner } = owner();
    async function* forgiving(): LayerGenerator {
      try {
        yield 'a';
      } catch {
        yield 'recovered';
      }
    }
    const chain = new ReleasingChain(forgiving(), chainOwner, undefined);
    await chain.next();
    expect([await chain.throw(new Error('in')), forgotten.length]).toEqual([{ value: 'recovered', done: false }, 0]);
    expect([await chain.next(), forgotten.length]).toEqual([{ value: undefined, done: true }, 1]);
  });

  it('is its own async iterator and closes on asyncDispose', async () => {
    const { forgotten, owner: chainOwner } = owner();
    const chain = new ReleasingChain(yieldAll('a', 'b'), chainOwner, undefined);
    expect(chain[Symbol.asyncIterator]()).toBe(chain);
    await chain.next();
    await chain[Symbol.asyncDispose]();
    expect(forgotten.length).toBe(1);
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
