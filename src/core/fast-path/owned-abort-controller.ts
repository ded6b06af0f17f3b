/**
 * Abort signals the library makes and aborts itself (an agent run's, the
 * narrowed signal of an inner chain), each with a flag an invoke reads on
 * every event instead of the signal's `aborted`.
 *
 * Why: on Node 20 every `AbortSignal` gets a hidden class of its own, so a
 * line of code that reads `aborted` from the signals of many invokes misses
 * V8's inline caches: about 20 ns a read, against under 2 ns for a field of
 * objects of one class. An invoke reads it twice per event. A signal whose
 * controller only the library holds aborts only when the library calls
 * `abort()`, so the flag, set just before, is never behind the signal: no
 * code of anyone else runs between the two.
 *
 * @packageDocumentation
 */

/** The controller of each signal made by a {@link OwnedAbortController}, alive exactly as long as its signal. */
const flagged = new WeakMap<AbortSignal, OwnedAbortController>();

/**
 * An `AbortController` whose `aborted` flag follows its signal. Only the
 * library may hold one: a signal whose controller someone else could abort
 * directly would abort without the flag.
 */
export class OwnedAbortController {
  /** A live instance keeps the class's hidden class through full collections (see `Invocation`'s keeper). */
  // eslint-disable-next-line no-unused-private-class-members -- never read: being alive is its whole job
  static readonly #shapeKeeper: unknown = /*#__PURE__*/ new OwnedAbortController();

  /** Set just before the signal aborts, so it always says what the signal's `aborted` says. */
  aborted = false;
  /** The signal, handed to whoever the library hands it. */
  readonly signal: AbortSignal;
  private readonly controller: AbortController;

  constructor() {
    this.controller = new AbortController();
    this.signal = this.controller.signal;
    flagged.set(this.signal, this);
  }

  /** Aborts the signal with `reason` (the runtime's default reason when undefined); once only, as `AbortController.abort()`. */
  abort(reason?: unknown): void {
    this.aborted = true;
    this.controller.abort(reason);
  }

  /** The controller of `signal` when it is one of these, whose flag can be read instead of the signal. */
  static of(signal: AbortSignal): OwnedAbortController | undefined {
    return flagged.get(signal);
  }
}
