/**
 * deepFreeze (MW-027, MW-038) on the values its walks treat apart: a root it
 * does not visit, skipped children of arrays and collections, several
 * children after one another, and arrays, Maps and Sets deeper than the
 * recursion goes (walked with a stack of their own).
 */
import { describe, expect, it } from 'vitest';
import { deepFreeze, deepFreezeOrFindCycle } from '../../src/util/deep-freeze';

/** {@link deepFreeze} with the answer of {@link deepFreezeOrFindCycle} when it finds no cycle, for tests run by both. */
function freezeOnly(value: unknown): string | undefined {
  deepFreeze(value);
  return undefined;
}

/** A chain `depth` levels deep, each level made by `wrap` around the next; returns the root and the innermost leaf. */
function chain(depth: number, wrap: (inner: object) => object): { root: object; leaf: { n: number } } {
  const leaf = { n: 1 };
  let node: object = leaf;
  for (let level = 0; level < depth; level++) node = wrap(node);
  return { root: node, leaf };
}

/** Whether `change` went through or threw. */
function attempt(change: () => unknown): 'changed' | 'refused' {
  try {
    change();
    return 'changed';
  } catch {
    return 'refused';
  }
}

const kinds: [string, (inner: object) => object][] = [
  ['arrays', (inner) => [null, inner]],
  [
    'Maps',
    (inner) =>
      new Map<string, unknown>([
        ['none', null],
        ['next', inner],
      ]),
  ],
  ['Sets', (inner) => new Set<unknown>([null, inner])],
];

describe('deepFreeze', () => {
  describe('with a root it does not visit', () => {
    it('takes a frozen root as it is, leaving its parts unfrozen', () => {
      const open = { n: 1 };
      const value = Object.freeze({ open });
      const cycle = deepFreezeOrFindCycle(value);
      deepFreeze(value);
      expect([cycle, Object.isFrozen(open)]).toEqual([undefined, false]);
    });

    it.each([
      ['null', null],
      ['a number', 42],
    ])('takes %s as it is, finding no cycle', (_label, value) => {
      deepFreeze(value);
      expect(deepFreezeOrFindCycle(value)).toBeUndefined();
    });
  });

  describe('with children it skips', () => {
    it.each([
      ['without', freezeOnly],
      ['with', deepFreezeOrFindCycle],
    ])('leaves null and frozen parts of arrays, Maps and Sets as they are, %s the cycle check', (_label, walk) => {
      const open = { n: 1 };
      const frozen = Object.freeze({ open });
      const value = {
        list: [null, frozen],
        map: new Map<string, unknown>([
          ['none', null],
          ['frozen', frozen],
        ]),
        set: new Set([null, frozen]),
      };
      expect(walk(value)).toBeUndefined();
      expect([Object.isFrozen(value.list), Object.isFrozen(value.map), Object.isFrozen(value.set), Object.isFrozen(open)]).toEqual([
        true,
        true,
        true,
        false,
      ]);
    });
  });

  describe('with several children, checked for cycles', () => {
    it.each([
      ['of an array', (first: object, second: object) => [first, second]],
      ['of a record', (first: object, second: object) => ({ first, second })],
      [
        'of a Map',
        (first: object, second: object) =>
          new Map([
            ['first', first],
            ['second', second],
          ]),
      ],
      ['of a Set', (first: object, second: object) => new Set([first, second])],
    ])('freezes every child %s', (_label, make) => {
      const first = { n: 1 };
      const second = { n: 2 };
      expect(deepFreezeOrFindCycle(make(first, second))).toBeUndefined();
      expect([Object.isFrozen(first), Object.isFrozen(second)]).toEqual([true, true]);
    });

    it.each([
      ['an array', 'items.0.owner', (value: Record<string, unknown>) => [{ owner: value }, { n: 2 }]],
      ['a record', 'items.first.owner', (value: Record<string, unknown>) => ({ first: { owner: value }, second: { n: 2 } })],
    ])('reports a cycle in the first child of %s although a later child has none', (_label, path, make) => {
      const value: Record<string, unknown> = {};
      value.items = make(value);
      expect(deepFreezeOrFindCycle(value)).toBe(path);
    });

    it('names the second member of a Set by its index', () => {
      const value: Record<string, unknown> = {};
      value.set = new Set([{ n: 1 }, { owner: value }]);
      expect(deepFreezeOrFindCycle(value)).toBe('set.1.owner');
    });
  });

  describe('with a value deeper than the recursion goes', () => {
    it.each(
      kinds.flatMap(([kind, wrap]) => [
        [kind, 'deepFreeze', wrap, freezeOnly] as const,
        [kind, 'deepFreezeOrFindCycle', wrap, deepFreezeOrFindCycle] as const,
      ]),
    )('freezes a chain of 1,000 %s down to the leaf (%s)', (_kind, _label, wrap, walk) => {
      const { root, leaf } = chain(1_000, wrap);
      expect(walk(root)).toBeUndefined();
      expect([Object.isFrozen(root), Object.isFrozen(leaf)]).toEqual([true, true]);
    });

    it.each(kinds)('does not exhaust the call stack on a chain of 100,000 %s without the cycle check', (_kind, wrap) => {
      const { root, leaf } = chain(100_000, wrap);
      deepFreeze(root);
      expect([Object.isFrozen(root), Object.isFrozen(leaf)]).toEqual([true, true]);
    });

    it.each([
      ['an object of the deep part', 800],
      ['an object above the recursion limit', 100],
    ])('freezes a deep cycle back to %s as it is, everything on it included', (_label, target) => {
      const nodes: Record<string, unknown>[] = [{ leaf: { n: 0 } }];
      for (let depth = 1; depth < 1_000; depth++) {
        const next: Record<string, unknown> = { leaf: { n: depth } };
        (nodes[depth - 1] as Record<string, unknown>).next = next;
        nodes.push(next);
      }
      (nodes[999] as Record<string, unknown>).back = nodes[target];
      deepFreeze(nodes[0]);
      expect(nodes.filter((node) => !Object.isFrozen(node) || !Object.isFrozen(node.leaf))).toEqual([]);
    });

    it('freezes the Maps and Sets of a deep part so that they refuse changes', () => {
      const map = new Map<string, number>();
      const set = new Set<number>();
      const { root, leaf } = chain(1_000, (inner) => ({ inner }));
      Object.assign(leaf, { map, set });
      deepFreezeOrFindCycle(root);
      expect([() => map.set('k', 1), () => set.add(1)].map((change) => attempt(change))).toEqual(['refused', 'refused']);
    });

    it.each([
      ['a Map value', (root: object) => new Map([['k', root]]), 'map.k'],
      ['a Set member after another', (root: object) => new Set<unknown>([{ n: 1 }, { owner: root }]), 'map.1.owner'],
      ['an array item after a null', (root: object) => [null, root], 'map.1'],
    ])('names the whole path of a deep cycle closing through %s', (_label, make, end) => {
      const root: Record<string, unknown> = {};
      let node = root;
      for (let depth = 0; depth < 600; depth++) {
        const next: Record<string, unknown> = { leaf: { n: depth } };
        node.next = next;
        node = next;
      }
      node.map = make(root);
      expect(deepFreezeOrFindCycle(root)).toBe(`${'next.'.repeat(600)}${end}`);
    });

    it('keeps the path right after a deep part without a cycle, for a cycle in a later sibling', () => {
      const { root: deep } = chain(1_000, (inner) => ({ a: { n: 0 }, inner }));
      const cyclic: Record<string, unknown> = {};
      cyclic.back = cyclic;
      const value = { outer: { deep, cyclic } };
      expect(deepFreezeOrFindCycle(value)).toBe('outer.cyclic.back');
    });
  });
});
