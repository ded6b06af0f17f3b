/**
 * Generator plumbing of the invoke: taking what a Wrap handler or the
 * terminal returned as a layer, and the small generators that enforce a
 * rule when a layer finishes (state recording, the `'once'` next policy).
 *
 * @packageDocumentation
 */
import * as messages from '../errors/messages';
import type { Culprit } from '../errors/messages';
import type { Link } from './signals';
import type { StateIsolation } from './state';

/** One layer of the onion as the invoke drives it. */
export type LayerGenerator = AsyncGenerator<unknown, void, undefined>;

/**
 * `next` of every native async generator. A layer whose `next` is this one
 * returns a native promise and never throws synchronously, which is what
 * lets the invoke take its per-event shortcut.
 */
export const nativeNext = (Object.getPrototypeOf(Object.getPrototypeOf((async function* probe() {})())) as LayerGenerator).next;

/**
 * Returns the generator itself when it is one; adapts other async iterables;
 * rejects the rest. Takes the culprit's parts rather than a culprit so the
 * common case allocates nothing.
 *
 * @throws MiddlewareError `ERR_INVALID_HANDLER` when `produced` is not an async iterable.
 */
export function asGenerator(produced: unknown, stage: string, phase: Culprit['phase'], handler: string): LayerGenerator {
  if (produced !== null && typeof produced === 'object') {
    const candidate = produced as Partial<LayerGenerator>;
    if (typeof candidate[Symbol.asyncIterator] === 'function') {
      if (typeof candidate.next === 'function' && typeof candidate.return === 'function') return candidate as LayerGenerator;
      return adapt(candidate as AsyncIterable<unknown>);
    }
  }
  throw messages.notAsyncIterable({ stage, phase, handler }, produced);
}

/** Gives an async iterable that is not a generator the `return()` the invoke closes layers with. */
async function* adapt(iterable: AsyncIterable<unknown>): LayerGenerator {
  yield* iterable;
}

/**
 * One pull from a layer that may be hand-written: whatever its `next()` does
 * (returns a plain result instead of a promise, or throws synchronously), the
 * caller gets a promise. A native generator's promise is returned as it is.
 */
export function pullFrom(events: LayerGenerator): Promise<IteratorResult<unknown, void>> {
  let pulled: IteratorResult<unknown, void> | PromiseLike<IteratorResult<unknown, void>>;
  try {
    pulled = events.next();
  } catch (error) {
    return Promise.reject(error);
  }
  return pulled instanceof Promise ? pulled : Promise.resolve(pulled);
}

/**
 * Calls a method of a layer that may be hand-written (`return` or `throw`)
 * so that a synchronous throw or a plain result still gives a promise.
 */
function callSafely(events: LayerGenerator, method: 'return' | 'throw', argument: unknown): Promise<IteratorResult<unknown, void>> {
  try {
    return Promise.resolve(events[method](argument as never));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Records the draft's state when the terminal call completes (and only then:
 * not when it is closed early or throws).
 *
 * Why a hand-written iterator rather than an `async function*` around the
 * terminal: with a state binding this sits on every event of the model
 * stream, and one `.then` per event costs about half of a generator layer.
 * The terminal may be any async iterable (MW-012): its `next()` may return
 * plain results or throw synchronously, and it may have no `throw()`.
 */
export class StateRecorder implements LayerGenerator {
  private readonly record: (pulled: IteratorResult<unknown, void>) => IteratorResult<unknown, void>;
  /** Set by the first end or close: later pulls of a finished call record nothing again. */
  private settled = false;

  /** Wraps one terminal call's events; `draft` is the draft that call received. */
  constructor(
    private readonly events: LayerGenerator,
    isolation: StateIsolation<unknown>,
    draft: unknown,
  ) {
    this.record = (pulled) => {
      if (pulled.done === true && !this.settled) {
        this.settled = true;
        isolation.complete(draft as never);
      }
      return pulled;
    };
  }

  /** Pulls the next event; the end of the terminal call records its state. */
  next(): Promise<IteratorResult<unknown, void>> {
    return pullFrom(this.events).then(this.record);
  }

  /** Closes the terminal call; a closed call records nothing. */
  return(value?: void | PromiseLike<void>): Promise<IteratorResult<unknown, void>> {
    this.settled = true;
    return callSafely(this.events, 'return', value);
  }

  /**
   * Throws into the terminal call; if it still completes, its state is
   * recorded. A terminal without `throw()` is closed and the error passes on,
   * as `yield*` does with such an iterator.
   */
  throw(error: unknown): Promise<IteratorResult<unknown, void>> {
    if (typeof this.events.throw !== 'function') {
      return this.return().then(
        () => Promise.reject(error),
        () => Promise.reject(error),
      );
    }
    return callSafely(this.events, 'throw', error).then(this.record);
  }

  /** Supports `await using`, like a native generator. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  /** The recorder is its own iterator, so `yield*` and `for await` drive it directly. */
  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** What a {@link ReleasingChain} reports to when it has ended. */
export interface ChainOwner {
  /** Forgets `chain`: it completed, threw or was closed, so there is nothing left to close. */
  forget(chain: ReleasingChain): void;
}

/**
 * An inner chain that tells its invoke when it has ended, so the invoke can
 * let go of it at once instead of at settle (MW-016). Used only past the first
 * inner chains of an invoke: it costs a promise reaction per event, which the
 * common case (a few `next()` calls) does not pay. Like `StateRecorder`, it
 * accepts any async iterator shape (MW-012).
 */
export class ReleasingChain implements LayerGenerator {
  private readonly onPulled: (pulled: IteratorResult<unknown, void>) => IteratorResult<unknown, void>;
  private readonly onFailed: (error: unknown) => never;
  private released = false;

  /** Wraps the generator `next()` entered; `link` ties its narrowed signal, released with it. */
  constructor(
    private readonly events: LayerGenerator,
    private readonly owner: ChainOwner,
    private readonly link: Link | undefined,
  ) {
    this.onPulled = (pulled) => {
      if (pulled.done === true) this.release();
      return pulled;
    };
    this.onFailed = (error) => {
      this.release();
      throw error;
    };
  }

  /** Pulls the next event; the end of the chain releases it. */
  next(): Promise<IteratorResult<unknown, void>> {
    return pullFrom(this.events).then(this.onPulled, this.onFailed);
  }

  /** Closes the chain; once it has ended (or failed closing) it is released. */
  return(value?: void | PromiseLike<void>): Promise<IteratorResult<unknown, void>> {
    return callSafely(this.events, 'return', value).then(this.onPulled, this.onFailed);
  }

  /** Throws into the chain; a chain without `throw()` is closed and the error passes on. */
  throw(error: unknown): Promise<IteratorResult<unknown, void>> {
    if (typeof this.events.throw !== 'function') {
      return this.return().then(
        () => Promise.reject(error),
        () => Promise.reject(error),
      );
    }
    return callSafely(this.events, 'throw', error).then(this.onPulled, this.onFailed);
  }

  /** Supports `await using`, like a native generator. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  /** The chain is its own iterator, so `yield*` and `for await` drive it directly. */
  [Symbol.asyncIterator](): this {
    return this;
  }

  private release(): void {
    if (this.released) return;
    this.released = true;
    this.owner.forget(this);
    this.link?.release();
  }
}

/**
 * Enforces `next: 'once'`: finishing without a call to `next()` is an error.
 *
 * @throws MiddlewareError `ERR_NEXT_POLICY` when the layer finishes and `activation.calls` is 0.
 */
export async function* requireACall(events: LayerGenerator, activation: { readonly calls: number }, culprit: () => Culprit): LayerGenerator {
  yield* events;
  if (activation.calls === 0) throw messages.nextPolicy(culprit(), 'once', 0);
}
