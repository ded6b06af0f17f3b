import { describe, expect, it } from 'vitest';
import type { LayerGenerator } from '../../../src/core/layer';
import { TrackedChain } from '../../../src/core/fast-path/tracked-chain';
import { collect, failure } from '../../assertions';

async function* yieldAll(...events: unknown[]): LayerGenerator {
  for (const event of events) yield event;
}

describe('TrackedChain', () => {
  function owner(): { forgotten: TrackedChain[]; owner: { onEnded(chain: TrackedChain): void } } {
    const forgotten: TrackedChain[] = [];
    return { forgotten, owner: { onEnded: (chain) => forgotten.push(chain) } };
  }
  function link(): { released: number[]; link: { release(): void } } {
    const released: number[] = [];
    return { released, link: { release: () => released.push(1) } };
  }

  it('forwards the events and forgets itself, releasing its link once, when the chain completes', async () => {
    const { forgotten, owner: chainOwner } = owner();
    const { released, link: chainLink } = link();
    const chain = new TrackedChain(yieldAll('a', 'b'), chainOwner, chainLink);
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
    const chain = new TrackedChain(failing(), chainOwner, undefined);
    await chain.next();
    expect([await failure(chain.next()), forgotten.length]).toEqual([thrown, 1]);
  });

  it('forgets itself when closed with return()', async () => {
    const { forgotten, owner: chainOwner } = owner();
    const chain = new TrackedChain(yieldAll('a', 'b'), chainOwner, undefined);
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
    const chain = new TrackedChain(stubborn(), chainOwner, undefined);
    await chain.next();
    expect([await chain.return(undefined), forgotten.length]).toEqual([{ value: 'cleanup', done: false }, 0]);
    expect([await chain.next(), forgotten.length]).toEqual([{ value: undefined, done: true }, 1]);
  });

  it('accepts a hand-written chain whose next() returns plain results, and one without throw()', async () => {
    const { forgotten, owner: chainOwner } = owner();
    const results = [
      { value: 'a', done: false },
      { value: undefined, done: true },
    ];
    const closed: string[] = [];
    const iterator = {
      [Symbol.asyncIterator]: () => iterator,
      next: () => results.shift(),
      return: () => (closed.push('return'), { value: undefined, done: true }),
    };
    const chain = new TrackedChain(iterator as unknown as LayerGenerator, chainOwner, undefined);
    expect(await collect(chain)).toEqual(['a']);
    const second = new TrackedChain(iterator as unknown as LayerGenerator, chainOwner, undefined);
    const thrown = new Error('thrown in');
    expect([await failure(second.throw(thrown)), closed, forgotten.length]).toEqual([thrown, ['return'], 2]);
  });

  it('passes the very error thrown in on, not the failure of closing, for a chain without throw() whose return() fails', async () => {
    const { forgotten, owner: chainOwner } = owner();
    const closing = new Error('return failed');
    const iterator = {
      [Symbol.asyncIterator]: () => iterator,
      next: () => ({ value: 'a', done: false }),
      return: () => Promise.reject(closing),
    };
    const chain = new TrackedChain(iterator as unknown as LayerGenerator, chainOwner, undefined);
    const thrown = new Error('thrown in');
    expect([await failure(chain.throw(thrown)), forgotten.length]).toEqual([thrown, 1]);
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
    const chain = new TrackedChain(forgiving(), chainOwner, undefined);
    await chain.next();
    expect([await chain.throw(new Error('in')), forgotten.length]).toEqual([{ value: 'recovered', done: false }, 0]);
    expect([await chain.next(), forgotten.length]).toEqual([{ value: undefined, done: true }, 1]);
  });

  it('is its own async iterator and closes on asyncDispose', async () => {
    const { forgotten, owner: chainOwner } = owner();
    const chain = new TrackedChain(yieldAll('a', 'b'), chainOwner, undefined);
    expect(chain[Symbol.asyncIterator]()).toBe(chain);
    await chain.next();
    await chain[Symbol.asyncDispose]();
    expect(forgotten.length).toBe(1);
  });
});
