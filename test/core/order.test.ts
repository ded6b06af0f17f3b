import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { sortByConstraints, type Orderable } from '../../src/core/order';

let clock = 0;
function item(name: string, options: Partial<Omit<Orderable, 'name'>> = {}): Orderable {
  return { name, seq: ++clock, order: 0, id: name, before: [], after: [], ...options };
}

const scope = { stage: 'model', phase: 'wrap' } as const;
const names = (items: readonly Orderable[]): string[] => items.map((entry) => entry.name);

describe('sortByConstraints', () => {
  describe('without constraints', () => {
    it('sorts by order, then by registration sequence', () => {
      const items = [item('late', { order: 5 }), item('first'), item('early', { order: -1 }), item('second')];
      expect(names(sortByConstraints(items, scope))).toEqual(['early', 'first', 'second', 'late']);
    });

    it('leaves the input array unchanged', () => {
      const items = [item('b', { order: 1 }), item('a')];
      sortByConstraints(items, scope);
      expect(names(items)).toEqual(['b', 'a']);
    });
  });

  describe('with constraints', () => {
    it('puts constraints before order', () => {
      const items = [item('a'), item('b'), item('c', { order: 10, before: ['a'] })];
      // a waits for c despite its lower order; b is unconstrained and goes first by order.
      expect(names(sortByConstraints(items, scope))).toEqual(['b', 'c', 'a']);
    });

    it('honours after as the mirror of before', () => {
      const items = [item('a', { after: ['c'] }), item('b'), item('c')];
      // b and c are free; b was registered before c, then a becomes free after c.
      expect(names(sortByConstraints(items, scope))).toEqual(['b', 'c', 'a']);
    });

    it('picks the lowest (order, sequence) among the items whose constraints are met', () => {
      const items = [item('a', { order: 2 }), item('b', { order: 1 }), item('c', { after: ['a'], order: -5 })];
      expect(names(sortByConstraints(items, scope))).toEqual(['b', 'a', 'c']);
    });

    it('ignores constraints naming ids outside the items and self references', () => {
      const items = [item('a', { before: ['ghost', 'a'] }), item('b', { order: -1 })];
      expect(names(sortByConstraints(items, scope))).toEqual(['b', 'a']);
    });

    it('takes the free items by (order, sequence) however many are ready at once', () => {
      const orders = [5, -3, 8, 0, -7, 2, 9, -1, 4, 6];
      const free = orders.map((order) => item(`o${order}`, { order }));
      const items = [...free, item('first', { before: ['o9'], order: 99 })];
      expect(names(sortByConstraints(items, scope))).toEqual(['o-7', 'o-3', 'o-1', 'o0', 'o2', 'o4', 'o5', 'o6', 'o8', 'first', 'o9']);
    });

    it('counts a constraint given from both sides once', () => {
      const items = [item('b'), item('a', { before: ['b'] }), item('c')];
      items[0] = { ...(items[0] as Orderable), after: ['a'] };
      expect(names(sortByConstraints(items, scope))).toEqual(['a', 'b', 'c']);
    });
  });

  describe('with a cycle', () => {
    it('throws ERR_ORDER_CYCLE listing the cycle', () => {
      const items = [item('free'), item('x', { before: ['y'] }), item('y', { before: ['z'] }), item('z', { before: ['x'] })];
      let thrown: unknown;
      try {
        sortByConstraints(items, scope);
      } catch (error) {
        thrown = error;
      }
      expect(MiddlewareError.isInstance(thrown)).toBe(true);
      const error = thrown as MiddlewareError;
      expect({ code: error.code, stage: error.stage, phase: error.phase, handler: error.handler }).toEqual({
        code: 'ERR_ORDER_CYCLE',
        stage: 'model',
        phase: 'wrap',
        handler: 'x',
      });
      expect(error.message).toBe(
        '[ERR_ORDER_CYCLE] The ordering constraints of the wrap handlers of stage "model" form a cycle: x -> y -> z -> x (each must run before the next). Remove one of these before/after constraints.',
      );
    });

    it('lists only the cycle when an item merely waits behind it', () => {
      const items = [item('a', { before: ['b'] }), item('b', { before: ['a'] }), item('tail', { after: ['b'] })];
      expect(() => sortByConstraints(items, scope)).toThrow('form a cycle: a -> b -> a (each');
    });

    it('lists the cycle, not an item waiting behind it that comes first', () => {
      // Regression: walking successors from the waiting item dead-ended and reported "tail -> tail".
      const items = [item('tail', { after: ['b'] }), item('a', { before: ['b'] }), item('b', { before: ['a'] })];
      let thrown: unknown;
      try {
        sortByConstraints(items, scope);
      } catch (error) {
        thrown = error;
      }
      expect((thrown as MiddlewareError).handler).toBe('a');
      expect((thrown as MiddlewareError).message).toContain('form a cycle: a -> b -> a (each');
    });

    it('finds the cycle when an item has several predecessors', () => {
      const items = [
        item('c', { after: ['a', 'b'] }),
        item('a', { before: ['b'] }),
        item('b', { before: ['d'] }),
        item('d', { before: ['b'] }),
      ];
      expect(() => sortByConstraints(items, scope)).toThrow('form a cycle: b -> d -> b (each');
    });

    it('walks back through the earliest stuck predecessor when two cycles share an item', () => {
      const items = [item('x', { before: ['y', 'z'] }), item('y', { before: ['x'] }), item('z', { before: ['x'] })];
      expect(() => sortByConstraints(items, scope)).toThrow('form a cycle: x -> y -> x (each');
    });

    it('waits for every predecessor before placing an item', () => {
      const items = [item('c', { after: ['a', 'b'], order: -9 }), item('b', { order: 2 }), item('a', { order: 1 })];
      expect(names(sortByConstraints(items, scope))).toEqual(['a', 'b', 'c']);
    });

    it('names an item without an id by its name', () => {
      const items = [item('a', { before: ['b'] }), item('b', { before: ['a'] })];
      const anonymous = { ...(items[0] as Orderable), id: undefined, name: 'nameless' };
      // Without an id, nothing can point at it, so only b -> a remains: no cycle.
      expect(names(sortByConstraints([anonymous, items[1] as Orderable, item('a2')], scope))).toEqual(['nameless', 'b', 'a2']);
    });
  });
});
