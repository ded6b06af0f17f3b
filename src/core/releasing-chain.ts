/**
 * An inner chain that lets its invoke forget it as soon as it ends (MW-016),
 * for the inner chains an invoke starts past the ones it holds until it
 * settles (`closing.ts`).
 *
 * @packageDocumentation
 */
import { callSafely, pullFrom, type LayerGenerator } from './layer';
import type { Link } from './signals';

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
