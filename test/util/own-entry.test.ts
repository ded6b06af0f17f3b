import { describe, expect, it } from 'vitest';
import { ownEntry, setOwnEntry } from '../../src/util/own-entry';

/** What a record shows: its own keys and values, and whether its prototype is still `prototype`. */
function shown(record: object, prototype: object | null): unknown {
  return { entries: Object.entries(record), samePrototype: Object.getPrototypeOf(record) === prototype };
}

describe('setOwnEntry', () => {
  describe('a key that Object.prototype has', () => {
    it.each(['__proto__', 'constructor', 'toString', 'prototype'])('makes %s an own data key, leaving the prototype', (key) => {
      const record = {};
      setOwnEntry(record, key, { isAdmin: true });
      expect([shown(record, Object.prototype), Object.getOwnPropertyDescriptor(record, key)]).toEqual([
        { entries: [[key, { isAdmin: true }]], samePrototype: true },
        { value: { isAdmin: true }, writable: true, enumerable: true, configurable: true },
      ]);
    });
  });

  describe('a key the prototype holds read-only or behind a setter', () => {
    it('adds the key where an assignment would throw, and runs no setter', () => {
      const calls: unknown[] = [];
      const prototype = Object.freeze({
        constructor: 'frozen',
        set name(value: unknown) {
          calls.push(value);
        },
      });
      const record = Object.create(prototype) as object;
      setOwnEntry(record, 'constructor', 1);
      setOwnEntry(record, 'name', 2);
      expect([shown(record, prototype), calls]).toEqual([
        {
          entries: [
            ['constructor', 1],
            ['name', 2],
          ],
          samePrototype: true,
        },
        [],
      ]);
    });
  });

  describe('a record without a prototype, or with the key already', () => {
    it('adds a new key and replaces the value of an own one', () => {
      const bare = Object.create(null) as object;
      const plain = { q: 1 };
      setOwnEntry(bare, '__proto__', 1);
      setOwnEntry(plain, 'q', 2);
      expect([shown(bare, null), shown(plain, Object.prototype)]).toEqual([
        { entries: [['__proto__', 1]], samePrototype: true },
        { entries: [['q', 2]], samePrototype: true },
      ]);
    });
  });
});

describe('ownEntry', () => {
  describe('a record keyed by outside strings', () => {
    it('answers for its own keys only', () => {
      const record = JSON.parse('{"__proto__":1,"q":2}') as object;
      expect([ownEntry(record, '__proto__'), ownEntry(record, 'q'), ownEntry({}, '__proto__'), ownEntry({}, 'constructor')]).toEqual([
        1,
        2,
        undefined,
        undefined,
      ]);
    });
  });
});
