/**
 * The async-generator protocol of a hand-written iterator whose consumer
 * calls are queued as a native generator's are: a call made while another
 * is pending starts only once that one is answered, whatever the calls are
 * (`next`, `return`, `throw`). A subclass supplies what one pull and one stop
 * do (the invoke's iterator, `invocation.ts`; the pass-through generator; the
 * agent's model stream; the AI SDK adapter's response stream), and may offer the direct pull ({@link
 * SerialAsyncGenerator.nextInto}) that lets a stack of them cost one promise
 * reaction per event.
 *
 * @packageDocumentation
 */

/**
 * How many calls of our iterators are running on the stack now. A call of one
 * iterator may call another's synchronously: an invoke pulls its outermost
 * layer, whose generator pulls the terminal, which may pull an invoke of its
 * own, and so on down a chain of re-entrant invokes. Past {@link NESTED_CALLS}
 * a call starts in a microtask of its own instead, on an empty stack, so that
 * the depth of such a chain is bounded by memory, not by the stack (MW-068).
 */
let running = 0;

/**
 * The calls that may nest on one stack. Each costs the frames of one iterator
 * of ours and of the layers and terminal between it and the next (about 1 KB
 * for a Wrap handler that forwards with `yield*`), so this leaves most of
 * the stack to handlers; a chain this deep pays one promise job per 64 levels.
 */
const NESTED_CALLS = 64;

/** One answer to a consumer's call. */
export type Answer<TEvent> = IteratorResult<TEvent, void>;

/** What a puller of our own does with an answer ({@link SerialAsyncGenerator.nextInto}). */
export type AnswerCallback<TEvent, TResult> = (answer: Answer<TEvent>) => TResult | Promise<TResult>;

/** What a puller of our own does with a failed pull ({@link SerialAsyncGenerator.nextInto}). */
export type FailureCallback<TResult> = (error: unknown) => TResult | Promise<TResult>;

/** A promise to start a call from in a microtask of its own (see {@link NESTED_CALLS}). */
const RESOLVED: Promise<void> = Promise.resolve();

/** An async generator whose calls run one at a time, in call order. */
export abstract class SerialAsyncGenerator<TEvent> implements AsyncGenerator<TEvent, void, undefined> {
  /** The consumer's calls not answered yet; the subclass counts each answer down. */
  protected outstanding = 0;
  /** The answer to the latest call (or what a puller made of it: `nextInto`), which the next call waits for. */
  private current: Promise<unknown> | undefined;
  // Callbacks made on first use: most invokes need none of them, and each costs an allocation per invoke.
  private pullLater: (() => Promise<Answer<TEvent>>) | undefined;
  private answeredCallback: ((answer: Answer<TEvent>) => Answer<TEvent>) | undefined;
  private rethrowCallback: ((failure: unknown) => never) | undefined;
  /** The puller's callbacks of the latest `nextInto`, which {@link SerialAsyncGenerator.deliverDirect} hands a direct pull's answer to. */
  private directAnswer: AnswerCallback<TEvent, unknown> | undefined;
  private directFailure: FailureCallback<unknown> | undefined;

  /** The iterator is its own iterator, so `for await` drives it directly. */
  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Pulls the next event. */
  next(): Promise<Answer<TEvent>> {
    if (this.outstanding++ === 0) {
      if (running === NESTED_CALLS) return this.callLater((this.pullLater ??= () => this.pull()));
      running++;
      try {
        return (this.current = this.pull());
      } finally {
        running--;
      }
    }
    return (this.current = (this.current as Promise<unknown>).then((this.pullLater ??= () => this.pull()), this.pullLater));
  }

  /**
   * `next().then(onAnswer, onFailure)`, for an iterator of ours pulling this one (an invoke, a pass-through generator). Where this
   * iterator makes its answer in a promise reaction of its own, `onAnswer` (or `onFailure`) runs in that same
   * reaction, so a stack of our iterators (an agent run's pass-through generator, its AgentStreamStage invoke, the turn
   * loop's pass-through generator, the InvokeModelStage invoke) costs one promise reaction per event rather than one per iterator. It
   * behaves as `next().then(onAnswer, onFailure)` does: the same answers and failures, in the same order, and a
   * call made meanwhile waits for it. Like `next()`, it never throws.
   */
  nextInto<TResult>(onAnswer: AnswerCallback<TEvent, TResult>, onFailure: FailureCallback<TResult>): Promise<TResult> {
    if (this.outstanding === 0 && running < NESTED_CALLS) {
      this.outstanding = 1;
      this.directAnswer = onAnswer;
      this.directFailure = onFailure;
      running++;
      let fused: Promise<TResult> | undefined;
      try {
        fused = this.tryDirectPull() as Promise<TResult> | undefined;
      } finally {
        running--;
      }
      if (fused !== undefined) return (this.current = fused);
      this.outstanding = 0;
    }
    return this.next().then(onAnswer, onFailure);
  }

  /**
   * One pull whose answer goes on to the puller's callbacks ({@link SerialAsyncGenerator.deliverDirect}) in the reaction that
   * makes it, with no call pending (see {@link SerialAsyncGenerator.nextInto}); undefined, having done nothing, when this
   * iterator cannot pull so now. Like `pull()`, it must count `outstanding` down when it is answered.
   */
  protected tryDirectPull(): Promise<unknown> | undefined {
    return undefined;
  }

  /**
   * Hands the answer of a direct pull to the puller's callbacks: at once, or once it settles when it is a
   * promise. `asItCame` is the result the answer was made from, which is never a promise: an answer that is it
   * skips the prototype walk of `instanceof`.
   */
  protected deliverDirect(answer: Answer<TEvent> | Promise<Answer<TEvent>>, asItCame?: unknown): unknown {
    const onAnswer = this.directAnswer as AnswerCallback<TEvent, unknown>;
    const onFailure = this.directFailure as FailureCallback<unknown>;
    return answer !== asItCame && answer instanceof Promise ? answer.then(onAnswer, onFailure) : onAnswer(answer as Answer<TEvent>);
  }

  /** Stops the iteration: closes what is open; writes nothing. */
  return(value?: unknown): Promise<Answer<TEvent>> {
    return this.enqueue(() => this.stop(false, value));
  }

  /** Stops the iteration like `return()`, then rejects with `error`. */
  throw(error: unknown): Promise<Answer<TEvent>> {
    return this.enqueue(() => this.stop(true, error));
  }

  /** Supports `await using`; same as `return()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  /** Answers one pull with a native promise, never throwing; must count `outstanding` down when it is answered. */
  protected abstract pull(): Promise<Answer<TEvent>>;

  /**
   * Answers `return(value)` (or `throw(error)` when `rethrow`; `error` is the value otherwise); must count
   * `outstanding` down when it is answered. Like `pull()`, it returns a native promise and never throws: a layer
   * built on this class takes the invoke's per-event shortcut (`native-next.ts`).
   */
  protected abstract stop(rethrow: boolean, error: unknown): Promise<Answer<TEvent>>;

  /** Counts an answer down and passes it on (a callback, created once per iterator and only when needed). */
  protected answered(): (answer: Answer<TEvent>) => Answer<TEvent> {
    return (this.answeredCallback ??= (answer) => {
      this.outstanding--;
      return answer;
    });
  }

  /** Counts an answer down and throws the failure it is (a callback, created once per iterator and only when needed). */
  protected rethrow(): (failure: unknown) => never {
    return (this.rethrowCallback ??= (failure) => {
      this.outstanding--;
      throw failure;
    });
  }

  /** Starts a call in a microtask of its own, on an empty stack (see {@link NESTED_CALLS}). */
  private callLater(call: () => Promise<Answer<TEvent>>): Promise<Answer<TEvent>> {
    const answer = RESOLVED.then(call);
    this.current = answer;
    return answer;
  }

  private enqueue(action: () => Promise<Answer<TEvent>>): Promise<Answer<TEvent>> {
    if (this.outstanding++ === 0) {
      if (running === NESTED_CALLS) return this.callLater(action);
      running++;
      try {
        return (this.current = action());
      } finally {
        running--;
      }
    }
    return (this.current = (this.current as Promise<Answer<TEvent>>).then(action, action));
  }
}
