/**
 * The AI SDK adapter learns how much of a conversation it has converted from
 * `sharedStart`, for speed; these tests pin that it counts exactly what
 * comparing the two arrays item by item from the first counts, whenever it
 * answers, and that it answers for the arrays a history makes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordExtension, sharedStart } from '../../../src/core/fast-path/array-lineage';

/** The plain construct: items compared from the first with `===` until one differs or an array ends. */
function comparedStart(a: readonly unknown[], b: readonly unknown[]): number {
  const length = Math.min(a.length, b.length);
  let index = 0;
  while (index < length && a[index] === b[index]) index++;
  return index;
}

/** `base` extended by `added`, frozen, and recorded as its extension. */
function extend(base: readonly unknown[], added: readonly unknown[]): readonly unknown[] {
  const next = Object.freeze([...base, ...added]);
  recordExtension(next, base);
  return next;
}

/** One step of a lineage: extend an earlier array by some items, the same items as another extension or new ones. */
interface Step {
  readonly from: number;
  readonly added: number;
  readonly reuse: boolean;
}

const steps = fc.array(fc.record({ from: fc.nat(), added: fc.integer({ min: 0, max: 3 }), reuse: fc.boolean() }), {
  minLength: 1,
  maxLength: 80,
});

/** The arrays a sequence of steps makes, from one frozen root; `reuse` appends items an earlier step appended. */
function grow(plan: readonly Step[]): readonly (readonly unknown[])[] {
  const arrays: (readonly unknown[])[] = [Object.freeze([{ root: true }])];
  const made: unknown[] = [];
  for (const { from, added, reuse } of plan) {
    const base = arrays[from % arrays.length] as readonly unknown[];
    const items = Array.from({ length: added }, (_, index) =>
      reuse && made.length > 0 ? made[(from + index) % made.length] : { item: made.length + index },
    );
    made.push(...items);
    arrays.push(extend(base, items));
  }
  return arrays;
}

describe('sharedStart', () => {
  it('knows no lineage recorded before a reader first asked, and records from then on', () => {
    // The first call of the process: what was extended before it is unknown to it.
    const base = Object.freeze(['a']);
    const before = extend(base, ['b']);
    expect(sharedStart(before, base)).toBeUndefined();
    const after = extend(base, ['c']);
    expect(sharedStart(after, base)).toBe(1);
  });

  it('counts what comparing item by item counts, for any two arrays of one lineage it answers for', () => {
    fc.assert(
      fc.property(steps, fc.nat(), fc.nat(), (plan, left, right) => {
        const arrays = grow(plan);
        const a = arrays[left % arrays.length] as readonly unknown[];
        const b = arrays[right % arrays.length] as readonly unknown[];
        const counted = sharedStart(a, b);
        if (counted !== undefined) expect(counted).toBe(comparedStart(a, b));
      }),
    );
  });

  it('answers for an array and any extension of it within 32 links, and for two arrays extending one such', () => {
    let array: readonly unknown[] = Object.freeze([1, 2]);
    const chain = [array];
    for (let link = 0; link < 32; link++) chain.push((array = extend(array, [{ link }])));
    expect(sharedStart(chain[0] as readonly unknown[], array)).toBe(2);
    expect(sharedStart(array, chain[10] as readonly unknown[])).toBe(12);
    const left = extend(chain[5] as readonly unknown[], ['left']);
    const right = extend(chain[5] as readonly unknown[], ['right']);
    expect(sharedStart(left, right)).toBe(7);
    expect(sharedStart(left, left)).toBe(8);
  });

  it('compares on past the array both extend, as the plain comparison does', () => {
    const base = Object.freeze(['a']);
    const same = { same: true };
    const left = extend(base, [same, 'x']);
    const right = extend(base, [same, 'y']);
    expect(sharedStart(left, right)).toBe(2);
  });

  it('stops at the end of the shorter array, as the plain comparison does, though the longer holds undefined there', () => {
    const base = Object.freeze(['a']);
    const extended = extend(base, [undefined]);
    expect(sharedStart(base, extended)).toBe(1);
    expect(sharedStart(extended, base)).toBe(1);
  });

  it('keeps answering along a long lineage: a cut chain starts one of its own, which answers for its extensions', () => {
    let array: readonly unknown[] = Object.freeze([0]);
    const unanswered: number[] = [];
    for (let link = 1; link <= 200; link++) {
      const next = extend(array, [link]);
      const counted = sharedStart(array, next);
      if (counted === undefined) unanswered.push(link);
      else expect(counted).toBe(array.length);
      array = next;
    }
    // One link in 32 or more starts a chain, where an array and its base have no common node.
    expect(unanswered.length).toBeLessThanOrEqual(200 / 32);
  });

  it('gives no answer for an array with a lineage and one without, whichever is asked first', () => {
    const base = Object.freeze(['a']);
    const extended = extend(base, ['b']);
    const lone = Object.freeze(['a', 'b']);
    expect(sharedStart(extended, lone)).toBeUndefined();
    expect(sharedStart(lone, extended)).toBeUndefined();
    expect(sharedStart(base, lone)).toBeUndefined();
  });

  it('gives no answer where it knows no lineage: arrays never extended, unfrozen ones, a chain past 32 links', () => {
    const lone = Object.freeze(['a', 'b']);
    expect(sharedStart(lone, lone)).toBeUndefined();
    expect(sharedStart(lone, Object.freeze(['a', 'b', 'c']))).toBeUndefined();
    const plain = ['a'];
    const fromPlain = Object.freeze([...plain, 'b']);
    recordExtension(fromPlain, plain);
    expect(sharedStart(fromPlain, plain)).toBeUndefined();
    const frozenBase = Object.freeze(['a']);
    const unfrozenNext = ['a', 'b'];
    recordExtension(unfrozenNext, frozenBase);
    expect(sharedStart(unfrozenNext, frozenBase)).toBeUndefined();
    let array: readonly unknown[] = Object.freeze([0]);
    const first = array;
    for (let link = 0; link < 40; link++) array = extend(array, [link]);
    expect(sharedStart(first, array)).toBeUndefined();
  });
});
