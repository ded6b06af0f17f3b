import { immerable } from 'immer';
import { describe, expect, it } from 'vitest';
import { deepFreeze, deepFreezeOrFindCycle } from '../../src/util/deep-freeze';

/** {@link deepFreeze} with the answer of {@link deepFreezeOrFindCycle} when it finds no cycle, for tests run by both. */
function freezeOnly(value: unknown): string | undefined {
  deepFreeze(value);
  return undefined;
}

/** Whether every object reachable through own enumerable properties, Map values and Set members is frozen. */
function allFrozen(value: unknown, seen = new Set<unknown>()): boolean {
  if (value === null || typeof value !== 'object' || seen.has(value)) return true;
  seen.add(value);
  if (!Object.isFrozen(value)) return false;
  const children = value instanceof Map || value instanceof Set ? [...value.values()] : Object.values(value);
  return children.every((child) => allFrozen(child, seen));
}

function cycle(): { a: { n: number; back: { a?: unknown } } } {
  const value = { a: { n: 1, back: {} as { a?: unknown } } };
  value.a.back.a = value.a;
  return value;
}

describe('deepFreeze', () => {
  describe('with a value it can draft', () => {
    it('freezes it deeply in place, Maps and Sets included', () => {
      const value = { list: [{ n: 1 }], map: new Map([['k', { n: 2 }]]), set: new Set([{ n: 3 }]) };
      deepFreeze(value);
      expect(allFrozen(value)).toBe(true);
      expect(() => value.map.set('other', { n: 4 })).toThrow();
      expect(() => value.set.add({ n: 5 })).toThrow();
    });

    it('takes frozen parts as they are, without visiting them', () => {
      const inner = { open: { n: 1 } };
      const value = { frozen: Object.freeze(inner), own: { n: 2 } };
      deepFreeze(value);
      expect([Object.isFrozen(value.own), Object.isFrozen(inner.open)]).toEqual([true, false]);
    });

    it('leaves what immer does not draft as it is, but freezes immerable instances', () => {
      class Connection {
        open = true;
      }
      class Draftable {
        [immerable] = true;
        n = 1;
      }
      const value = { connection: new Connection(), date: new Date(0), draftable: new Draftable() };
      deepFreeze(value);
      expect([
        Object.isFrozen(value),
        Object.isFrozen(value.connection),
        Object.isFrozen(value.date),
        Object.isFrozen(value.draftable),
      ]).toEqual([true, false, false, true]);
    });

    it("leaves a function as it is, though it carries immer's mark", () => {
      const marked = (): object => Object.assign(() => undefined, { [immerable]: true, n: 1 });
      const root = marked();
      const child = marked();
      const value = { child };
      deepFreeze(root);
      const cycle = deepFreezeOrFindCycle(value);
      expect([cycle, Object.isFrozen(root), Object.isFrozen(child), Object.isFrozen(value)]).toEqual([undefined, false, false, true]);
    });

    it.each([
      ['without', freezeOnly],
      ['with', deepFreezeOrFindCycle],
    ])('does not exhaust the call stack on a deep value, %s the cycle check', (_label, walk) => {
      let deep: { next?: unknown } = {};
      const root = deep;
      for (let depth = 0; depth < 100_000; depth++) {
        const next = {};
        deep.next = next;
        deep = next;
      }
      expect(walk(root)).toBeUndefined();
      expect([Object.isFrozen(root), Object.isFrozen(deep)]).toEqual([true, true]);
    });

    it('visits an object reachable along many paths once', () => {
      let reads = 0;
      const shared = {
        get n(): number {
          reads++;
          return 1;
        },
      };
      const value = { a: shared, b: shared, list: [shared, shared] };
      deepFreezeOrFindCycle(value);
      expect([reads, Object.isFrozen(shared)]).toEqual([1, true]);
    });

    it('accepts an object reachable along two paths', () => {
      const shared = { n: 1 };
      const value = { a: shared, b: [shared] };
      expect(deepFreezeOrFindCycle(value)).toBeUndefined();
      expect(allFrozen(value)).toBe(true);
    });
  });

  describe('with a reference cycle', () => {
    it('freezes it as it is', () => {
      const value = cycle();
      deepFreeze(value);
      expect(allFrozen(value)).toBe(true);
    });
  });
});

describe('deepFreezeOrFindCycle', () => {
  describe('with a reference cycle', () => {
    it.each([
      ['through objects', () => cycle(), 'a.back.a'],
      [
        'at the root',
        () => {
          const value: Record<string, unknown> = { n: 1 };
          value.self = value;
          return value;
        },
        'self',
      ],
      [
        'through an array',
        () => {
          const value: { items: unknown[] } = { items: [] };
          value.items.push({ owner: value });
          return value;
        },
        'items.0.owner',
      ],
      [
        'through a Map value',
        () => {
          const value = { map: new Map<string, unknown>() };
          value.map.set('me', value);
          return value;
        },
        'map.me',
      ],
      [
        'through a Map with an object key',
        () => {
          const value = { map: new Map<object, unknown>() };
          value.map.set({}, value);
          return value;
        },
        'map.<object key>',
      ],
      [
        'through a Map with a symbol key',
        () => {
          const value = { map: new Map<symbol, unknown>() };
          value.map.set(Symbol('k'), value);
          return value;
        },
        'map.<symbol key>',
      ],
      [
        'through a Set member',
        () => {
          const value = { set: new Set<unknown>() };
          value.set.add({ owner: value });
          return value;
        },
        'set.0.owner',
      ],
    ])('names where a cycle %s closes and leaves the root unfrozen when asked to reject it', (_label, make, path) => {
      const value = make();
      expect(deepFreezeOrFindCycle(value)).toBe(path);
      expect(Object.isFrozen(value)).toBe(false);
    });

    it('leaves the objects on the path to the cycle unfrozen, and may have frozen what it finished before', () => {
      const finished = { n: 0 };
      const value = { before: finished, a: { n: 1, back: {} as { a?: unknown } } };
      value.a.back.a = value.a;
      expect(deepFreezeOrFindCycle(value)).toBe('a.back.a');
      expect([Object.isFrozen(value), Object.isFrozen(value.a), Object.isFrozen(value.a.back), Object.isFrozen(finished)]).toEqual([
        false,
        false,
        false,
        true,
      ]);
    });

    it('finds a cycle deeper than the recursion goes, naming its whole path', () => {
      const root: { next?: unknown } = {};
      let node = root;
      for (let depth = 0; depth < 1000; depth++) {
        const next = {};
        node.next = next;
        node = next;
      }
      (node as { back?: unknown }).back = root;
      const path = deepFreezeOrFindCycle(root);
      expect([path?.split('.').length, path?.endsWith('next.back'), Object.isFrozen(root)]).toEqual([1001, true, false]);
    });

    it('does not see a cycle running through a frozen part', () => {
      const value = cycle();
      Object.freeze(value.a.back);
      expect(deepFreezeOrFindCycle(value)).toBeUndefined();
    });
  });
});
