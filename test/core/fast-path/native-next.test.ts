import { describe, expect, it } from 'vitest';
import type { LayerGenerator } from '../../../src/core/layer';
import { hasNativeNext, isOwnIterator } from '../../../src/core/fast-path/native-next';
import { QueuedPassThrough } from '../native-pull-fixtures';

async function* events(): LayerGenerator {
  yield 'a';
}

describe('hasNativeNext', () => {
  it('holds for a native async generator and for an iterator built on SerialAsyncGenerator', () => {
    expect([hasNativeNext(events()), hasNativeNext(new QueuedPassThrough(events()) as LayerGenerator)]).toEqual([true, true]);
  });

  it('does not hold for a hand-written iterator, whose next() may throw or return a plain result', () => {
    const source = events();
    const handWritten = { next: () => source.next(), return: () => source.return(), throw: (error: unknown) => source.throw(error) };
    expect(hasNativeNext(handWritten as unknown as LayerGenerator)).toBe(false);
  });

  it('does not hold for an iterator that overrides the next() of SerialAsyncGenerator', () => {
    class Overriding extends QueuedPassThrough<unknown> {
      override next(): Promise<IteratorResult<unknown, void>> {
        return super.next();
      }
    }
    expect(hasNativeNext(new Overriding(events()) as LayerGenerator)).toBe(false);
  });
});

describe('isOwnIterator', () => {
  it('holds only for an iterator built on SerialAsyncGenerator whose next() is its own', () => {
    class Overriding extends QueuedPassThrough<unknown> {
      override next(): Promise<IteratorResult<unknown, void>> {
        return super.next();
      }
    }
    expect([
      isOwnIterator(new QueuedPassThrough(events()) as LayerGenerator),
      isOwnIterator(events()),
      isOwnIterator(new Overriding(events()) as LayerGenerator),
    ]).toEqual([true, false, false]);
  });
});
