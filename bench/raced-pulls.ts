/**
 * The abort race an agent's floor with the checks adds to each pull of the
 * model's stream. MW-115 asks the agent's model terminal to race every
 * `next()` of the model against the run signal, so that a cancelled run
 * stops waiting on a model that never answers; a loop written by hand does
 * not, so the floor of `agent_turn` would leave out work the contract asks
 * for unless it did it too. This is the cheapest such race we know how to
 * write: per pull, one promise whose settlers are kept and which the model's
 * answer settles; one listener per stream, removed when the stream ends.
 */

/** An async iterator over `inner` whose every pull is raced against `signal` (see the file's comment). */
export class RacedPulls<TEvent> implements AsyncIterator<TEvent, void, undefined> {
  /** Set by the listener: cheaper to read on every pull than the signal's getter. */
  private aborted = false;
  private listening = false;
  /** The pending pull's settlers; undefined once it is settled, so that a late answer of the inner one is ignored. */
  private resolvePull: ((answer: IteratorResult<TEvent, void>) => void) | undefined = undefined;
  private rejectPull: ((reason: unknown) => void) | undefined = undefined;
  // Made in the constructor, as the shells' callbacks are (see `floor.ts`), and only calling methods.
  private readonly capture: (resolve: (answer: IteratorResult<TEvent, void>) => void, reject: (reason: unknown) => void) => void;
  private readonly onAnswer: (answer: IteratorResult<TEvent, void>) => void;
  private readonly onFailure: (error: unknown) => void;
  private readonly onAbort: () => void;
  /** With `result`: the stream ended and its result went out; every pull ends. */
  private finished = false;

  /**
   * With `result`, the end of `inner` is answered with the event it makes, as the agent's model terminal answers it
   * with the assembled model result, and the pull after that with the end.
   */
  constructor(
    private readonly inner: AsyncIterator<TEvent, void, undefined>,
    private readonly signal: AbortSignal,
    private readonly result?: () => TEvent,
  ) {
    this.capture = (resolve, reject) => {
      this.resolvePull = resolve;
      this.rejectPull = reject;
    };
    this.onAnswer = (answer) => {
      this.answered(answer);
    };
    this.onFailure = (error) => {
      this.failed(error);
    };
    this.onAbort = () => {
      this.abort();
    };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Pulls the inner iterator, answering at once with the signal's reason if it aborts first. */
  next(): Promise<IteratorResult<TEvent, void>> {
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    if (!this.listening) {
      this.listening = true;
      this.aborted = this.signal.aborted;
      this.signal.addEventListener('abort', this.onAbort);
    }
    if (this.aborted) {
      this.detach();
      this.closeInner();
      return Promise.reject(this.signal.reason as Error);
    }
    const pending = this.inner.next();
    const answer = new Promise<IteratorResult<TEvent, void>>(this.capture);
    pending.then(this.onAnswer, this.onFailure);
    return answer;
  }

  /** Stops listening, then closes the inner iterator. */
  return(): Promise<IteratorResult<TEvent, void>> {
    this.detach();
    return this.inner.return?.() ?? Promise.resolve({ value: undefined, done: true });
  }

  private answered(answer: IteratorResult<TEvent, void>): void {
    const resolve = this.resolvePull;
    // Settled already: the signal aborted while this pull was pending.
    if (resolve === undefined) return;
    const reject = this.rejectPull as (reason: unknown) => void;
    this.resolvePull = undefined;
    this.rejectPull = undefined;
    if (answer.done !== true) {
      resolve(answer);
      return;
    }
    this.detach();
    const result = this.result;
    if (result === undefined) {
      resolve(answer);
      return;
    }
    this.finished = true;
    let value: TEvent;
    try {
      value = result();
    } catch (error) {
      reject(error);
      return;
    }
    resolve({ value, done: false });
  }

  private failed(error: unknown): void {
    const reject = this.rejectPull;
    // Settled already by the abort: a late rejection is dropped here rather than left unhandled.
    if (reject === undefined) return;
    this.detach();
    reject(error);
  }

  private abort(): void {
    this.aborted = true;
    const reject = this.rejectPull;
    if (reject === undefined) return;
    this.detach();
    this.closeInner();
    reject(this.signal.reason);
  }

  /** Removes the listener and forgets the pending pull's settlers. */
  private detach(): void {
    this.resolvePull = undefined;
    this.rejectPull = undefined;
    if (!this.listening) return;
    this.listening = false;
    this.signal.removeEventListener('abort', this.onAbort);
  }

  /** Asks the inner iterator to close without waiting for it; a failure of that is dropped. */
  private closeInner(): void {
    this.inner.return?.().then(undefined, () => undefined);
  }
}

/** Races every pull of `events` against `signal`; with `result`, answers their end with the event it makes (see {@link RacedPulls}). */
export function racePulls<TEvent>(events: AsyncIterable<TEvent>, signal: AbortSignal, result?: () => TEvent): AsyncIterable<TEvent> {
  return new RacedPulls(events[Symbol.asyncIterator]() as AsyncIterator<TEvent, void, undefined>, signal, result);
}

/**
 * One answer raced against `signal`, as MW-115 asks of the agent's tool calls: the answer, or a rejection with the
 * signal's reason as soon as it aborts (at once when it has); one listener for the call, removed once it settles;
 * a late answer or failure is ignored. The cheapest such race we know how to write, for the floor with the checks.
 */
export function raceAnswer<TValue>(pending: Promise<TValue>, signal: AbortSignal): Promise<TValue> {
  if (signal.aborted) {
    pending.then(undefined, () => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<TValue>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort);
    pending.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * The macrotask MW-142 asks the agent to wait for at the start of every turn: `setImmediate`, as the agent's own
 * scheduler takes in Node.js.
 */
export function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(resolve);
  });
}
