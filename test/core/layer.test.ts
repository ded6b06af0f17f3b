import { describe, expect, it } from 'vitest';
import { asGenerator, pullFrom, requireACall, type LayerGenerator } from '../../src/core/layer';
import { nativeNext } from '../../src/core/fast-path/native-next';
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
      expect((adapted as { next: unknown }).next).toBe(nativeNext);
      expect(await collect(adapted)).toEqual(['a', 'b']);
    });

    it('adapts an iterable that has a return() of its own but no next()', async () => {
      const iterable = { [Symbol.asyncIterator]: () => yieldAll('a', 'b'), return: () => ({ value: undefined, done: true }) };
      const adapted = asGenerator(iterable, 'model', 'terminal', 'terminal');
      expect([adapted === (iterable as unknown), adapted.next === nativeNext]).toEqual([false, true]);
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
        [Symbol.asyncIterator]: () => ({
          next: () => source.next(),
          return: () => (closed.push('return'), Promise.resolve({ value: undefined, done: true as const })),
        }),
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
    [
      'a thenable that is not a promise',
      () => ({
        then: (resolve: (value: unknown) => void) => {
          resolve({ value: 'b', done: false });
        },
      }),
      { value: 'b', done: false },
    ],
  ])('turns %s into a promise of it', async (_label, next, expected) => {
    expect(await pullFrom({ next } as unknown as LayerGenerator)).toEqual(expected);
  });

  it('turns a synchronous throw into a rejection with the very error', async () => {
    const thrown = new Error('thrown by next');
    let synchronous = false;
    let pulled: Promise<unknown> | undefined;
    try {
      pulled = pullFrom({
        next: () => {
          throw thrown;
        },
      } as unknown as LayerGenerator);
    } catch {
      synchronous = true;
    }
    expect([synchronous, await failure(pulled as Promise<unknown>)]).toEqual([false, thrown]);
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
