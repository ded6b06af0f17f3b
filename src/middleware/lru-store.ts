import type { CacheEntry, CacheStore } from './cache-store';
import { positiveInteger } from './options';

/**
 * The default store of `cache`: in memory, least recently used entries
 * evicted first once `maxEntries` is reached.
 *
 * Why a `Map`: it keeps insertion order, so re-inserting on every read makes
 * its first key the least recently used one, with no list to maintain.
 *
 * @example
 * ```ts
 * registry.add(ModelStage.Wrap, cache({ key: (context) => context.prompt, store: new LruStore(100) }));
 * ```
 */
export class LruStore implements CacheStore {
  private readonly entries = new Map<string, CacheEntry>();

  /** Most entries kept. */
  readonly maxEntries: number;

  /**
   * @param maxEntries - Most entries kept. Default 500.
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` unless `maxEntries` is an integer >= 1.
   */
  constructor(maxEntries = 500) {
    this.maxEntries = positiveInteger('LruStore', 'maxEntries', maxEntries);
  }

  /** Number of entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** The entry for `key`, marking it most recently used. */
  get(key: string): CacheEntry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /** Stores `entry`, evicting the least recently used entry when full. */
  set(key: string, entry: CacheEntry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** Removes the entry for `key`. */
  delete(key: string): void {
    this.entries.delete(key);
  }
}
