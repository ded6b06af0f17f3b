/**
 * The inner chains an invoke started, kept so that it can close the ones
 * still open when it settles (MW-016): the first few as they are, the rest
 * each wrapped in a {@link TrackedChain} that lets the invoke forget it as
 * soon as it ends.
 *
 * @packageDocumentation
 */
import { callSafely, pullFrom, type LayerGenerator } from '../layer';

/** What ties a chain's narrowed signal to the signals it follows (a `Link` of `signals.ts`): released with the chain. */
export interface ChainLink {
  /** Stops following; harmless twice. */
  release(): void;
}

/** What a {@link TrackedChain} reports to when it has ended. */
export interface ChainOwner {
  /** Forgets `chain`: it completed, threw or was closed, so there is nothing left to close. */
  onEnded(chain: TrackedChain): void;
}

/** Where an invoke keeps the inner chains `next()` started until it settles (the invoke's own fields). */
export interface HeldChains {
  /** The first inner chains `next()` started, held as they are until the invoke settles; undefined before the first. */
  started: LayerGenerator[] | undefined;
  /** Later inner chains that have not ended yet; each removes itself when it ends. */
  open: Set<TrackedChain> | undefined;
  /** What the later inner chains report their end to (created with the first of them). */
  owner: ChainOwner | undefined;
  /** Links of the narrowed signals of the first inner chains, released when the invoke settles. */
  links: ChainLink[] | undefined;
}

/**
 * How many inner chains an invoke remembers as they are, until it settles
 * (MW-016). Past these, `next()` returns each chain wrapped, so that it can
 * be forgotten as soon as it ends: a handler making thousands of sequential
 * calls keeps only the open ones. The bound is well above the chains of an
 * ordinary invoke (one per Wrap handler, a few more per retry), which thus
 * pay nothing per event.
 */
const HELD_CHAINS = 32;

/**
 * Takes an inner chain `next()` just entered, with the link of its narrowed
 * signal, and returns what the handler receives: the chain itself (so
 * `next()` allocates nothing per event), or past the first HELD_CHAINS a
 * wrapper that forgets it when it ends.
 */
export function track(held: HeldChains, generator: LayerGenerator, link: ChainLink | undefined): LayerGenerator {
  // Made with the first chain: an invoke without Wrap handlers, or whose handlers never call next(), has none.
  const started = (held.started ??= []);
  if (started.length < HELD_CHAINS) {
    started.push(generator);
    if (link !== undefined) (held.links ??= []).push(link);
    return generator;
  }
  const chain = new TrackedChain(generator, (held.owner ??= { onEnded: (ended) => void held.open?.delete(ended) }), link);
  (held.open ??= new Set()).add(chain);
  return chain;
}

/**
 * An inner chain that tells its invoke when it has ended, so the invoke can
 * let go of it at once instead of at settle (MW-016). Used only past the first
 * inner chains of an invoke: it costs a promise reaction per event, which the
 * common case (a few `next()` calls) does not pay. Like `StateRecorder`, it
 * accepts any async iterator shape (MW-012).
 */
export class TrackedChain implements LayerGenerator {
  private readonly onPulled: (pulled: IteratorResult<unknown, void>) => IteratorResult<unknown, void>;
  private readonly onFailed: (error: unknown) => never;
  private ended = false;

  /** Wraps the generator `next()` entered; `link` ties its narrowed signal, released when it ends. */
  constructor(
    private readonly events: LayerGenerator,
    private readonly owner: ChainOwner,
    private readonly link: ChainLink | undefined,
  ) {
    this.onPulled = (pulled) => {
      if (pulled.done === true) this.end();
      return pulled;
    };
    this.onFailed = (error) => {
      this.end();
      throw error;
    };
  }

  /** Pulls the next event; the end of the chain ends its tracking. */
  next(): Promise<IteratorResult<unknown, void>> {
    return pullFrom(this.events).then(this.onPulled, this.onFailed);
  }

  /** Closes the chain; once it has ended (or failed closing) its tracking ends. */
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

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.owner.onEnded(this);
    this.link?.release();
  }
}
