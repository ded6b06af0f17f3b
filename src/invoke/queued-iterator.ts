/**
 * The async-generator protocol of a hand-written iterator whose consumer
 * calls are queued as a native generator's are: a call made while another
 * is pending starts only once that one is answered, whatever the calls are
 * (`next`, `return`, `throw`). The invoke's iterator supplies what one pull
 * (`invocation.ts`) and one stop (`invocation-lifecycle.ts`) do.
 *
 * @packageDocumentation
 */

/** One answer to a consumer's call. */
export type Answer<TEvent> = IteratorResult<TEvent, void>;

/** An async generator whose calls run one at a time, in call order. */
export abstract class QueuedIterator<TEvent> implements AsyncGenerator<TEvent, void, undefined> {
  /** The consumer's calls not answered yet; the subclass counts each answer down. */
  protected outstanding = 0;
  /** The answer to the latest call, which the next call waits for. */
  private current: Promise<Answer<TEvent>> | undefined;
  // Callbacks made on first use: most invokes need none of them, and each costs an allocation per invoke.
  private pullLater: (() => Promise<Answer<TEvent>>) | undefined;
  private answeredCallback: ((answer: Answer<TEvent>) => Answer<TEvent>) | undefined;
  private rethrowCallback: ((failure: unknown) => never) | undefined;

  /** The iterator is its own iterator, so `for await` drives it directly. */
  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Pulls the next event. */
  next(): Promise<Answer<TEvent>> {
    if (this.outstanding++ === 0) return (this.current = this.pull());
    return (this.current = (this.current as Promise<Answer<TEvent>>).then((this.pullLater ??= () => this.pull()), this.pullLater));
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
   * built on this class takes the invoke's per-event shortcut (`native-layers.ts`).
   */
  protected abstract stop(rethrow: boolean, error: unknown): Promise<Answer<TEvent>>;

  /** Counts an answer down and passes it on (a callback, created once per iterator and only when needed). */
  // Stryker disable BlockStatement,AssignmentOperator,UpdateOperator: the count only decides whether a call waits for the answer before it; too high, calls wait for answers already given, with the same results.
  protected answered(): (answer: Answer<TEvent>) => Answer<TEvent> {
    return (this.answeredCallback ??= (answer) => {
      this.outstanding--;
      return answer;
    });
  }
  // Stryker restore BlockStatement,AssignmentOperator,UpdateOperator

  /** Counts an answer down and throws the failure it is (a callback, created once per iterator and only when needed). */
  protected rethrow(): (failure: unknown) => never {
    return (this.rethrowCallback ??= (failure) => {
      // Stryker disable next-line UpdateOperator: the count only decides whether a call waits for the answer before it; too high, calls wait for answers already given, with the same results.
      this.outstanding--;
      throw failure;
    });
  }

  private enqueue(action: () => Promise<Answer<TEvent>>): Promise<Answer<TEvent>> {
    if (this.outstanding++ === 0) return (this.current = action());
    return (this.current = (this.current as Promise<Answer<TEvent>>).then(action, action));
  }
}
