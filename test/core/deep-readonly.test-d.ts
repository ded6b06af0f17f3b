import { describe, expectTypeOf, it } from 'vitest';
import type { DeepReadonly } from '../../src/core/index';

class Counter {
  count = 0;
  increment(): void {
    this.count++;
  }
}

describe('DeepReadonly', () => {
  describe('containers the deep freeze visits', () => {
    it('makes plain objects read-only all the way down', () => {
      expectTypeOf<DeepReadonly<{ text: string; usage: { tokens: number } }>>().toEqualTypeOf<{
        readonly text: string;
        readonly usage: { readonly tokens: number };
      }>();
    });

    it('makes arrays read-only arrays of read-only items', () => {
      expectTypeOf<DeepReadonly<{ parts: { text: string }[] }>>().toEqualTypeOf<{ readonly parts: readonly { readonly text: string }[] }>();
    });

    it('keeps tuples tuples, read-only', () => {
      expectTypeOf<DeepReadonly<[string, { n: number }]>>().toEqualTypeOf<readonly [string, { readonly n: number }]>();
    });

    it('makes a Map a ReadonlyMap with read-only values and its keys as they are (the freeze leaves keys alone)', () => {
      expectTypeOf<DeepReadonly<Map<{ id: string }, { tags: string[] }>>>().toEqualTypeOf<
        ReadonlyMap<{ id: string }, { readonly tags: readonly string[] }>
      >();
    });

    it('makes a Set a ReadonlySet of read-only members', () => {
      expectTypeOf<DeepReadonly<Set<{ tags: string[] }>>>().toEqualTypeOf<ReadonlySet<{ readonly tags: readonly string[] }>>();
    });

    it('maps each member of a union', () => {
      expectTypeOf<DeepReadonly<{ type: 'a'; items: string[] } | { type: 'b' } | null>>().toEqualTypeOf<
        { readonly type: 'a'; readonly items: readonly string[] } | { readonly type: 'b' } | null
      >();
    });
  });

  describe('values the deep freeze leaves as they are', () => {
    it('keeps primitives and literal types', () => {
      expectTypeOf<DeepReadonly<string>>().toEqualTypeOf<string>();
      expectTypeOf<DeepReadonly<number | boolean>>().toEqualTypeOf<number | boolean>();
      expectTypeOf<DeepReadonly<bigint | symbol | undefined>>().toEqualTypeOf<bigint | symbol | undefined>();
      expectTypeOf<DeepReadonly<'done'>>().toEqualTypeOf<'done'>();
    });

    it('keeps functions, dates, regular expressions, promises, binary data and weak collections', () => {
      interface Kept {
        format: (value: number) => string;
        at: Date;
        pattern: RegExp;
        pending: Promise<string[]>;
        bytes: Uint8Array;
        buffer: ArrayBuffer;
        seen: WeakSet<object>;
        notes: WeakMap<object, string[]>;
      }
      expectTypeOf<DeepReadonly<Kept>>().toEqualTypeOf<{ readonly [TKey in keyof Kept]: Kept[TKey] }>();
    });

    it('keeps any and unknown', () => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- what DeepReadonly makes of any is the behaviour under test
      expectTypeOf<DeepReadonly<{ loose: any }>['loose']>().toBeAny();
      expectTypeOf<DeepReadonly<unknown>>().toEqualTypeOf<unknown>();
    });
  });

  describe('class instances', () => {
    it('gives them read-only properties, their methods kept, so they still fit where the class is expected', () => {
      expectTypeOf<DeepReadonly<Counter>>().toEqualTypeOf<{ readonly count: number; readonly increment: () => void }>();
      expectTypeOf<DeepReadonly<Counter>>().toExtend<Counter>();
    });
  });

  describe('writes', () => {
    it('rejects writes to properties, array items and collections at every depth', () => {
      const value = {} as DeepReadonly<{ text: string; parts: { text: string }[]; byId: Map<string, { n: number }>; tags: Set<string> }>;
      // @ts-expect-error: a read-only property cannot be assigned
      value.text = 'x';
      // @ts-expect-error: a read-only array has no push
      value.parts.push({ text: 'x' });
      // @ts-expect-error: a property of an array item is read-only
      for (const item of value.parts) item.text = 'x';
      // @ts-expect-error: a ReadonlyMap has no set
      value.byId.set('a', { n: 1 });
      // @ts-expect-error: a ReadonlySet has no add
      value.tags.add('x');
      expectTypeOf(value.byId.get('a')).toEqualTypeOf<{ readonly n: number } | undefined>();
    });

    it('lets a copy of a read-only array be changed', () => {
      const frozen = {} as DeepReadonly<{ tags: string[] }>;
      expectTypeOf([...frozen.tags]).toEqualTypeOf<string[]>();
    });
  });
});
