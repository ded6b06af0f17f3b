/**
 * What `cache` keeps its entries in: the entry and the store contract, on
 * their own so that the default store and a user's store implement them
 * without loading the handler.
 *
 * @packageDocumentation
 */
/** What a cache store holds per key: the events of one inner chain run, the result last. */
export interface CacheEntry {
  /** Every event the inner chain yielded, in order; the last is its result. */
  readonly events: readonly unknown[];
  /** When the entry expires, in milliseconds since the Unix epoch (the `wallClock()` of `options.timers`); undefined for never. */
  readonly expiresAt: number | undefined;
}

/**
 * Where `cache` keeps entries. Any method may return a promise, so a remote
 * store shared by many processes plugs in: a `Keyv` instance (for instance
 * `new Keyv<CacheEntry>(new KeyvRedis(url))`) is a store as it is. A store may
 * serialise entries; it must give back `expiresAt` as set and the events
 * equal as JSON values (MW-180). A method that throws or rejects, or a `get`
 * answering something that is not an entry, is reported through `onError`
 * and does not fail the call.
 */
export interface CacheStore {
  /** The entry for `key`, or undefined (or null) on a miss. */
  get(key: string): CacheEntry | null | undefined | PromiseLike<CacheEntry | null | undefined>;
  /** Stores an entry; `ttlMs` (the `ttlMs` option, undefined without one) says when the store may drop it. */
  set(key: string, entry: CacheEntry, ttlMs: number | undefined): unknown;
  /** Removes an entry (used for expired ones when present). */
  delete?(key: string): unknown;
}
