/**
 * The floor of the stream figures: the cheapest possible shell around a
 * chain, one that only passes the outermost layer's results through a
 * `.then` callback, with none of the invoke's checks.
 *
 * Why measure it: an invoke must look at every event before the consumer
 * does (abort, `undefined`, the end of the chain), so it adds at least one
 * promise reaction per event. How much that reaction costs relative to the
 * chain depends on the engine, not on this library; the floor figure shows
 * what part of a ratio no implementation of the contract can remove.
 */

const END: IteratorReturnResult<void> = Object.freeze({ value: undefined, done: true });

/**
 * A minimal async iterator over `inner`: one `.then` per event, no checks.
 * Given `held`, the inner chains a hand-nested chain entered, it closes them
 * when the chain ends, before answering that pull, as MW-016 asks of an
 * invoke (see {@link closeHeld}).
 */
export class MinimalShell<TEvent> implements AsyncIterator<TEvent, void, undefined> {
  /** A live instance keeps the shell's hidden class through full collections, as the invoke keeps its own (`gc_pressure`). */
  // eslint-disable-next-line no-unused-private-class-members -- never read: being alive is its whole job
  static readonly #keeper: unknown = new MinimalShell((async function* nothing() {})(), undefined);

  private readonly onPulled: (pulled: IteratorResult<TEvent, void>) => IteratorResult<TEvent, void> | Promise<IteratorResult<TEvent, void>>;

  constructor(
    private readonly inner: AsyncIterator<TEvent, void, undefined>,
    held: readonly AsyncIterable<unknown>[] | undefined,
  ) {
    this.onPulled =
      held === undefined
        ? (pulled) => (pulled.done === true ? END : pulled)
        : (pulled) => (pulled.done === true ? closeHeld(held) : pulled);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Pulls the inner iterator's next result. */
  next(): Promise<IteratorResult<TEvent, void>> {
    return this.inner.next().then(this.onPulled);
  }
}

/** Wraps an async iterable in a {@link MinimalShell}, which closes `held` at the end when given. */
export function minimalShell<TEvent>(events: AsyncIterable<TEvent>, held?: readonly AsyncIterable<unknown>[]): AsyncIterable<TEvent> {
  return new MinimalShell(events[Symbol.asyncIterator]() as AsyncIterator<TEvent, void, undefined>, held);
}

/** What the floor of a figure whose invoke enters inner chains is: the minimal shell, which closes them at the end. */
export const CLOSING_FLOOR =
  'a minimal shell (one .then per event, no checks) around the baseline, which closes the inner chains with return(), most recent first, before answering the pull that met the end (MW-016)';

/**
 * Closes the inner chains a hand-nested chain entered, most recent first, one
 * after the other, then answers the end: what MW-016 asks of every invoke at
 * settle, in one async step. Since MW-013 hands each handler the inner
 * layer's own generator, an implementation cannot see which of them ended,
 * so it closes them all, and a `return()` of a native async generator costs
 * two promise jobs even when it has ended.
 */
async function closeHeld(held: readonly AsyncIterable<unknown>[]): Promise<IteratorReturnResult<void>> {
  for (let index = held.length - 1; index >= 0; index--) await (held[index] as AsyncGenerator<unknown, void>).return(undefined);
  return END;
}
