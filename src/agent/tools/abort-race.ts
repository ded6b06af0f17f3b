/**
 * Lets a terminal stop waiting on user code (a tool's promise, a model
 * stream's `next()`) once its signal aborts. The core can close a layer only
 * when the layer's pending `await` settles, so a tool or model that ignores
 * its signal would hold a cancelled run forever unless the wait itself gives
 * up: the race has to be inside the terminal.
 *
 * One abort listener per terminal call, whatever the number of waits, removed
 * by {@link AbortRace.dispose}.
 */
export class AbortRace {
  private readonly signal: AbortSignal;
  /** Whether the signal aborted, kept by the listener: cheaper to read on every wait than the signal's getter. */
  private aborted: boolean;
  /** Settle the pending wait, if any. */
  private resolveWaiting: ((value: unknown) => void) | undefined;
  private rejectWaiting: ((reason: unknown) => void) | undefined;
  private readonly onAbort = (): void => {
    this.aborted = true;
    const reject = this.rejectWaiting;
    this.rejectWaiting = undefined;
    reject?.(this.signal.reason);
  };
  /** The executor of every wait's promise: one function per race rather than a closure per wait. */
  private readonly capture = (resolve: (value: unknown) => void, reject: (reason: unknown) => void): void => {
    this.resolveWaiting = resolve;
    this.rejectWaiting = reject;
  };

  /** Starts listening to `signal`. */
  constructor(signal: AbortSignal) {
    this.signal = signal;
    this.aborted = signal.aborted;
    signal.addEventListener('abort', this.onAbort);
  }

  /**
   * Waits for `pending`, or rejects with the signal's reason as soon as the
   * signal aborts (at once when it already has). A settlement that comes
   * after the abort is ignored, a late rejection included: it is handled here,
   * so it never surfaces as an unhandled rejection.
   */
  wait<T>(pending: PromiseLike<T>): Promise<T> {
    if (this.aborted) {
      ignoreRejection(pending);
      return Promise.reject(this.signal.reason as Error);
    }
    const waiting = new Promise<unknown>(this.capture) as Promise<T>;
    pending.then(this.resolveWaiting, this.rejectWaiting);
    return waiting;
  }

  /** Stops listening. */
  dispose(): void {
    this.resolveWaiting = undefined;
    this.rejectWaiting = undefined;
    this.signal.removeEventListener('abort', this.onAbort);
  }
}

function doNothing(): void {
  // Dropping the rejection is the point: see ignoreRejection().
}

/** Handles a promise's rejection, so dropping it raises no unhandled rejection. */
export function ignoreRejection(pending: PromiseLike<unknown>): void {
  try {
    pending.then(undefined, doNothing);
  } catch {
    // A thenable whose then() throws has nothing left to handle.
  }
}
