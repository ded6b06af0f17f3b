/**
 * Abort signals of the invoke: the shared signal of invokes without one, and
 * the narrowed signal `next(context, { signal })` gives an inner chain.
 *
 * @packageDocumentation
 */
import { OwnedAbortController } from './fast-path';

let neverAborting: AbortSignal | undefined;

/** One shared signal for invokes without one, so handlers can always read `run.signal`. */
export function neverSignal(): AbortSignal {
  neverAborting ??= new AbortController().signal;
  return neverAborting;
}

/** What ties a narrowed signal to the signals it follows; `release()` unties it (harmless twice). */
export interface Link {
  /** Stops following: the source signals no longer reach the narrowed signal, and a source left without followers loses its listener. */
  release(): void;
}

/** A narrowed signal and its link, or no link when nothing had to be tied (see `narrowSignal`). */
export interface Narrowing {
  /** The signal the inner chain receives. */
  readonly signal: AbortSignal;
  /** Undefined when the signal is one of the given ones, or was aborted at once. */
  readonly link: Link | undefined;
}

/**
 * A signal that aborts when either `outer` or `extra` does, with the reason of
 * whichever aborted first.
 *
 * Why not `AbortSignal.any`: on Node 20 every call leaves a weak reference on
 * each source signal that is never removed, so narrowing under a long-lived
 * signal on every invoke grows without bound. Here each source signal carries
 * one listener, shared by every narrowed signal that follows it, and holds
 * those only weakly: a narrowed signal that nothing else holds is collected,
 * and then it stops being followed (where the runtime has `WeakRef` and
 * `FinalizationRegistry`). `release()` stops following at once; the invoke
 * calls it when the inner chain is released or the invoke settles.
 */
export function narrowSignal(outer: AbortSignal, extra: AbortSignal): Narrowing {
  if (outer === neverAborting || outer === extra) return { signal: extra, link: undefined };
  // Flagged: an invoke under the narrowed signal reads the flag on every event instead (`fast-path/owned-abort-controller.ts`).
  const controller = new OwnedAbortController();
  if (outer.aborted) controller.abort(outer.reason);
  else if (extra.aborted) controller.abort(extra.reason);
  else return { signal: controller.signal, link: new Follower(controller, [outer, extra]) };
  return { signal: controller.signal, link: undefined };
}

/** The single listener of each source signal, and the links following it. */
const sources = new WeakMap<AbortSignal, Source>();

const weakLinking = typeof WeakRef === 'function' && typeof FinalizationRegistry === 'function';

/** Releases the link of a narrowed signal that was collected without being released. */
const collected = weakLinking
  ? new FinalizationRegistry<Follower>((follower) => {
      follower.release();
    })
  : undefined;

/** One source signal: its one abort listener and the narrowed signals following it. */
class Source {
  readonly followers = new Set<Follower>();
  readonly #onAbort: () => void;

  readonly #signal: AbortSignal;

  constructor(signal: AbortSignal) {
    this.#signal = signal;
    this.#onAbort = () => {
      this.#detach();
      for (const follower of [...this.followers]) follower.abort(signal.reason);
    };
    signal.addEventListener('abort', this.#onAbort);
    sources.set(signal, this);
  }

  /** The source of `signal`, created (and listened to) on first use. */
  static of(signal: AbortSignal): Source {
    return sources.get(signal) ?? new Source(signal);
  }

  /** Forgets a follower; the listener goes with the last one. */
  drop(follower: Follower): void {
    if (this.followers.delete(follower) && this.followers.size === 0) this.#detach();
  }

  #detach(): void {
    this.#signal.removeEventListener('abort', this.#onAbort);
    sources.delete(this.#signal);
  }
}

/** The link of one narrowed signal to its sources; holds the narrowed signal weakly where it can. */
class Follower implements Link {
  readonly #target: { deref(): AbortSignal | undefined };
  readonly #following: Source[];

  constructor(controller: OwnedAbortController, signals: readonly AbortSignal[]) {
    const signal = controller.signal;
    this.#target = weakLinking ? new WeakRef(signal) : { deref: () => signal };
    this.#following = signals.map((source) => Source.of(source));
    for (const source of this.#following) source.followers.add(this);
    collected?.register(signal, this, this);
  }

  /** A source aborted: abort the narrowed signal with its reason, then stop following. */
  abort(reason: unknown): void {
    const signal = this.#target.deref();
    this.release();
    if (signal !== undefined) OwnedAbortController.of(signal)?.abort(reason);
  }

  /** See {@link Link.release}. */
  release(): void {
    for (const source of this.#following) source.drop(this);
    collected?.unregister(this);
  }
}
