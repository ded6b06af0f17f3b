/**
 * One model call's events, as the terminal of InvokeModelStage yields them.
 * Why a hand-written iterator, not an `async function*`: it sits on every
 * event of every model stream, and racing each `next()` of the model against
 * the signal (MW-115) inside a generator costs a promise for the race, an
 * await of it and the generator's own promise and await per event; this
 * iterator settles the race's promise with the answer itself, so an event
 * costs one promise and one reaction.
 *
 * @packageDocumentation
 */
import { SerialAsyncGenerator, type Answer } from '../../core/internal';
import { reportCompletion, type CompletionReporting } from '../../core/internal';
import type { TerminalCall } from '../../core/index';
import { isAwaitable } from '../../util/thenable';
import { ignoreRejection } from '../tools/abort-race';
import { invalidModelStream } from '../tools/call-errors';
import { close, openStream } from './model-source';
import { MessageAssembly } from './message-assembly';
import { toModelRequest } from './model-request';
import type { Model, ModelStreamEvent } from '../types/model';
import type { InvokeModelContext, InvokeModelEvent } from '../types/stages';

/** Nothing ran yet. */
const IDLE = 0;
/** The model's stream is open; between two pulls, or one pending. */
const OPEN = 1;
/** The result went out; the next pull ends the iteration. */
const RESULT = 2;
/** Ended: every pull ends at once. */
const DONE = 3;

const END: IteratorReturnResult<void> = Object.freeze({ value: undefined, done: true });

/** One model call's events, then its result (see `modelTerminal`). */
export class ModelStream extends SerialAsyncGenerator<InvokeModelEvent> implements CompletionReporting {
  private status = IDLE;
  private iterator: AsyncIterator<ModelStreamEvent> | undefined;
  private readonly assembly = new MessageAssembly();
  /** Called when the call completes; undefined without a state binding, and once called or the call closed. */
  private completion: (() => void) | undefined;
  /** Whether the signal aborted, kept by the listener: cheaper to read on every pull than the signal's getter. */
  private aborted = false;
  /** Settle the pending pull, if any; undefined once it is settled, so a late settlement of the model's is ignored. */
  private resolvePull: ((answer: Answer<InvokeModelEvent> | Promise<Answer<InvokeModelEvent>>) => void) | undefined;
  private rejectPull: ((reason: unknown) => void) | undefined;
  // Per-iterator callbacks that only call methods: methods keep their optimised code across collections (see Invocation).
  private readonly onAbort = (): void => {
    this.abortPull();
  };
  private readonly capture = (
    resolve: (answer: Answer<InvokeModelEvent> | Promise<Answer<InvokeModelEvent>>) => void,
    reject: (reason: unknown) => void,
  ): void => {
    this.resolvePull = resolve;
    this.rejectPull = reject;
  };
  private readonly onStep = (step: IteratorResult<ModelStreamEvent>): void => {
    this.stepped(step);
  };
  private readonly onModelFailed = (error: unknown): void => {
    this.modelFailed(error);
  };

  constructor(
    private readonly context: InvokeModelContext,
    private readonly run: TerminalCall<unknown>,
  ) {
    super();
  }

  /** Under a state binding, the invoke records the call's state when it completes (see `reportCompletion`). */
  [reportCompletion](callback: () => void): void {
    this.completion = callback;
  }

  protected pull(): Promise<Answer<InvokeModelEvent>> {
    const status = this.status;
    if (status === OPEN) return this.wait();
    if (status === IDLE) return this.open();
    this.status = DONE;
    this.outstanding--;
    const completion = this.completion;
    this.completion = undefined;
    // The pull after the result ends a completed call: the only moment its state is recorded.
    if (status === RESULT && completion !== undefined) {
      try {
        completion();
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return Promise.resolve(END);
  }

  /** The first pull: calls the model, then waits for its first event. */
  private open(): Promise<Answer<InvokeModelEvent>> {
    const { context, run } = this;
    const { signal } = run;
    const { model } = context;
    try {
      const stream = (model as Partial<Model> | undefined)?.stream;
      if (typeof stream !== 'function') throw invalidModelStream(stream);
      if (signal.aborted) throw signal.reason;
      this.iterator = openStream(
        stream.call(model, toModelRequest(context), Object.freeze({ signal, state: run.state as Record<string, unknown> })),
      );
    } catch (error) {
      return this.end(error);
    }
    this.status = OPEN;
    // One listener per call, whatever the number of pulls; removed when the stream ends (detach).
    this.aborted = signal.aborted;
    signal.addEventListener('abort', this.onAbort);
    return this.wait();
  }

  /** One pull from the model, raced against the signal: the answer settles the race's own promise. */
  private wait(): Promise<Answer<InvokeModelEvent>> {
    let pending: PromiseLike<IteratorResult<ModelStreamEvent>>;
    try {
      pending = (this.iterator as AsyncIterator<ModelStreamEvent>).next();
    } catch (error) {
      return this.modelEnded(error);
    }
    if (this.aborted) {
      ignoreRejection(pending);
      // An abort between two pulls: the stream is left, and closed without waiting for it.
      this.detach();
      this.closeAborted();
      return this.end(this.run.signal.reason);
    }
    const answer = new Promise<Answer<InvokeModelEvent>>(this.capture);
    try {
      pending.then(this.onStep, this.onModelFailed);
    } catch (error) {
      // Not a thenable: the model's next() is broken, as a failure of the model (which detaches the race's settlers).
      return this.modelEnded(error);
    }
    return answer;
  }

  /** The model's next() fulfilled: the event goes out, or the result when the stream ended. */
  private stepped(step: IteratorResult<ModelStreamEvent>): void {
    const resolve = this.resolvePull;
    const reject = this.rejectPull as (reason: unknown) => void;
    // Settled already: the signal aborted while this pull was pending.
    if (resolve === undefined) return;
    this.resolvePull = undefined;
    this.rejectPull = undefined;
    let event: ModelStreamEvent;
    try {
      if (step.done === true) {
        this.detach();
        this.status = RESULT;
        const result = this.assembly.result();
        this.outstanding--;
        resolve({ value: result, done: false });
        return;
      }
      event = step.value;
      this.assembly.add(event);
    } catch (error) {
      if (this.status === RESULT) {
        this.status = DONE;
        this.outstanding--;
        reject(error);
        return;
      }
      resolve(this.leave(error));
      return;
    }
    // As an async generator's yield would, a thenable event is awaited (an event of a known type is none).
    if (typeof event.type !== 'string' && isAwaitable(event)) {
      resolve(this.awaitEvent(event));
      return;
    }
    this.outstanding--;
    resolve(step);
  }

  /** A thenable event: its value goes out; a rejection leaves the stream as a failure of the pull. */
  private async awaitEvent(event: PromiseLike<unknown>): Promise<Answer<InvokeModelEvent>> {
    let value: unknown;
    try {
      value = await event;
    } catch (error) {
      return this.leave(error);
    }
    this.outstanding--;
    return { value: value as InvokeModelEvent, done: false };
  }

  /** The model's next() rejected. */
  private modelFailed(error: unknown): void {
    const resolve = this.resolvePull;
    // Settled already by the abort: a late rejection, handled here.
    if (resolve === undefined) return;
    resolve(this.modelEnded(error));
  }

  /** The model failed (its next() threw or rejected): a failed stream is not closed, unless the signal aborted meanwhile. */
  private modelEnded(error: unknown): Promise<never> {
    this.detach();
    if (this.run.signal.aborted) this.closeAborted();
    return this.end(error);
  }

  /** The signal aborted: a pending pull stops waiting at once and fails with the reason; the stream is closed without waiting. */
  private abortPull(): void {
    this.aborted = true;
    const reject = this.rejectPull;
    if (reject === undefined) return;
    this.detach();
    this.closeAborted();
    this.status = DONE;
    this.outstanding--;
    reject(this.run.signal.reason);
  }

  /** Leaves the stream early with `error`: closes it first (a failure of that replaces `error`, as a `finally` would). */
  private async leave(error: unknown): Promise<never> {
    this.detach();
    this.status = DONE;
    try {
      await close(this.iterator as AsyncIterator<ModelStreamEvent>, this.run.signal.aborted);
    } finally {
      this.outstanding--;
    }
    throw error;
  }

  protected async stop(rethrow: boolean, error: unknown): Promise<Answer<InvokeModelEvent>> {
    const open = this.status === OPEN;
    this.status = DONE;
    // A closed call records nothing.
    this.completion = undefined;
    try {
      if (open) {
        this.detach();
        await close(this.iterator as AsyncIterator<ModelStreamEvent>, this.run.signal.aborted);
      }
    } finally {
      this.outstanding--;
    }
    if (rethrow) throw error;
    return { value: error as undefined, done: true };
  }

  /** Ends the iteration with a failure. */
  private end(error: unknown): Promise<never> {
    this.status = DONE;
    this.outstanding--;
    return Promise.reject(error);
  }

  /** Stops listening to the signal, and forgets the pending pull's settlers so that a late settlement is ignored. */
  private detach(): void {
    this.resolvePull = undefined;
    this.rejectPull = undefined;
    this.run.signal.removeEventListener('abort', this.onAbort);
  }

  /** Requests the stream's `return()` after an abort, without waiting for it; a failure of it is dropped. */
  private closeAborted(): void {
    void close(this.iterator as AsyncIterator<ModelStreamEvent>, true);
  }
}
