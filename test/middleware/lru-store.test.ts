import { describe, expect, it } from 'vitest';
import { LruStore, type CacheEntry } from '../../src/middleware/index';

describe('LruStore', () => {
  const entry = (text: string): CacheEntry => ({ events: [text], expiresAt: undefined });

  describe('when full', () => {
    it('evicts the least recently used entry, counting reads as use', () => {
      const store = new LruStore(2);
      store.set('a', entry('a'));
      store.set('b', entry('b'));
      store.get('a');
      store.set('c', entry('c'));
      expect([store.get('a'), store.get('b'), store.get('c')]).toEqual([entry('a'), undefined, entry('c')]);
      expect(store.size).toBe(2);
    });

    it('replaces an entry set again without evicting another', () => {
      const store = new LruStore(2);
      store.set('a', entry('a'));
      store.set('b', entry('b'));
      store.set('a', entry('a2'));
      expect([store.get('a'), store.get('b')]).toEqual([entry('a2'), entry('b')]);
    });
  });

  describe('delete', () => {
    it('removes the entry', () => {
      const store = new LruStore();
      store.set('a', entry('a'));
      store.delete('a');
      expect(store.get('a')).toBeUndefined();
    });
  });

  describe('constructor', () => {
    it.each([0, 1.5, Number.NaN])('rejects maxEntries %s with ERR_INVALID_OPTIONS', (maxEntries) => {
      expect(() => new LruStore(maxEntries)).toThrow(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          handler: 'LruStore',
          message: expect.stringContaining('maxEntries must be an integer'),
        }),
      );
    });
  });
});
