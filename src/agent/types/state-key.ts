/**
 * The type of a typed key of the invocation state (MW-317): what a handler
 * reads and writes through its context, typed by the key's value.
 */

/** What a state key reads and writes through: any context of the standard stages, or a tool's run context. */
export interface StateCarrier {
  /** The run's invocation state, shared by reference by every stage of the run. */
  readonly invocationState: Record<string, unknown>;
}

/**
 * A typed key of the invocation state, made by `createStateKey`: it reads
 * and writes one property of the carrier's `invocationState`, checked by
 * the key's schema when it has one.
 */
export interface StateKey<TValue> {
  /** The property of the invocation state it reads and writes. */
  readonly name: string;
  /** The value under the key, checked; undefined when the invocation state has no such own property. */
  get(carrier: StateCarrier): TValue | undefined;
  /** Stores `value`, checked (the value the schema gives back), under the key, and returns what it stored. */
  set(carrier: StateCarrier, value: TValue): TValue;
  /** Whether the invocation state has an own property of the key's name. */
  has(carrier: StateCarrier): boolean;
}
