/**
 * One call's response as model stream events: the request sent, the
 * provider's stream parts read and turned into events, the stream released
 * however the call ends. Why a hand-written iterator, not an `async
 * function*`: it sits on every part of every response, and a generator that
 * awaits each read and delegates to a generator per part costs a promise, an
 * await and a generator object per part on top of the provider's own read;
 * this iterator answers each pull with the read's promise and one reaction.
 * It behaves as the generator it replaces (kept in the tests as their
 * oracle, `test/ai-sdk/response-stream.test.ts`):
 *
 * ```ts
 * async function* streamResponse(call, signal) {
 *   if (signal.aborted) throw signal.reason;
 *   const reader = (await call()).stream.getReader();
 *   const cancel = () => release(reader, signal.reason);
 *   signal.addEventListener('abort', cancel, { once: true });
 *   let ended = false;
 *   try {
 *     yield { type: 'messageStart', role: 'assistant' };
 *     const parts = new ResponseParts();
 *     for (;;) {
 *       const read = await reader.read();
 *       if (signal.aborted) throw signal.reason; // a cancelled read is no answer, whatever arrived
 *       if (read.done) break;
 *       const events: ModelStreamEvent[] = []; // an array is an EventSink
 *       parts.read(read.value, events);
 *       yield* events;
 *     }
 *     ended = true;
 *   } finally {
 *     signal.removeEventListener('abort', cancel);
 *     if (!ended) release(reader, undefined);
 *     try { reader.releaseLock(); } catch {}
 *   }
 * }
 * ```
 *
 * @packageDocumentation
 */
import { SerialAsyncGenerator, type Answer } from '../core/internal';
import type { ModelStreamEvent } from '../agent/types/model';
import type { AiSdkStreamReader, AiSdkStreamResult } from './ai-sdk-types';
import { ResponseParts, type EventSink } from './stream-parts';

/** Nothing ran yet. */
const IDLE = 0;
/** The provider's stream is open: between two pulls, or one pending. */
const OPEN = 1;
/** Ended: every pull ends at once. */
const DONE = 2;

const END: IteratorReturnResult<void> = Object.freeze({ value: undefined, done: true });

/** What a read of the provider's stream answers. */
interface PartRead {
  readonly done: boolean;
  readonly value?: unknown;
}

/** Cancels the provider's stream without waiting for it; a failure to cancel changes nothing. */
export function release(reader: AiSdkStreamReader, reason: unknown): void {
  try {
    Promise.resolve(reader.cancel(reason)).catch(() => undefined);
  } catch {
    // A stream that cannot be cancelled is dropped all the same.
  }
}

/**
 * The events of one part as {@link ResponseParts.read} adds them: the first, answered at once, and the others (a
 * tool call's start and input, a finish's usage and stop) for the pulls after it. Why not an array emptied per
 * part: setting an array's length is a runtime call, paid on nearly every part.
 */
class PartEvents implements EventSink {
  first: ModelStreamEvent | undefined = undefined;
  /** The events after the first, from `next` on still to go out; undefined when there are none. */
  rest: ModelStreamEvent[] | undefined = undefined;
  next = 0;

  /** Ready for the next part. */
  clear(): void {
    this.first = undefined;
    this.next = 0;
  }

  push(event: ModelStreamEvent): void {
    if (this.first === undefined) this.first = event;
    else if (this.rest === undefined) this.rest = [event];
    else this.rest.push(event);
  }
}

/** One call's events (see the module's header for the generator it behaves as). */
export class ResponseStream extends SerialAsyncGenerator<ModelStreamEvent> {
  private status = IDLE;
  private reader: AiSdkStreamReader | undefined;
  private readonly parts = new ResponseParts();
  /** The events of the last part read. */
  private readonly events = new PartEvents();
  // Per-iterator callbacks that only call methods: methods keep their optimised code across collections (see Invocation).
  private readonly onOpened = (result: AiSdkStreamResult): Answer<ModelStreamEvent> => this.opened(result);
  private readonly onRead = (read: PartRead): Answer<ModelStreamEvent> | Promise<Answer<ModelStreamEvent>> => this.stepped(read);
  private readonly onReadFailed = (error: unknown): never => this.fail(error);
  /** A read the provider never answers ends when the run is cancelled, and the provider's stream is cancelled with it. */
  private readonly cancel = (): void => {
    release(this.reader as AiSdkStreamReader, this.signal.reason);
  };

  constructor(
    private readonly call: () => PromiseLike<AiSdkStreamResult>,
    private readonly signal: AbortSignal,
  ) {
    super();
  }

  protected pull(): Promise<Answer<ModelStreamEvent>> {
    if (this.status === OPEN) {
      const { rest } = this.events;
      if (rest !== undefined) {
        const event = rest[this.events.next++] as ModelStreamEvent;
        if (this.events.next === rest.length) this.events.rest = undefined;
        this.outstanding--;
        return Promise.resolve({ value: event, done: false });
      }
      return this.read();
    }
    if (this.status === DONE) {
      this.outstanding--;
      return Promise.resolve(END);
    }
    this.status = DONE;
    let result: PromiseLike<AiSdkStreamResult>;
    try {
      if (this.signal.aborted) throw this.signal.reason;
      result = this.call();
    } catch (error) {
      this.outstanding--;
      return Promise.reject(error);
    }
    return Promise.resolve(result).then(this.onOpened, this.rethrow());
  }

  protected stop(rethrow: boolean, error: unknown): Promise<Answer<ModelStreamEvent>> {
    this.outstanding--;
    if (this.status === OPEN) this.close(false);
    this.status = DONE;
    return rethrow ? Promise.reject(error) : Promise.resolve({ value: error as undefined, done: true });
  }

  /** The provider answered the call: its stream is read from now on, and the message starts. */
  private opened(result: AiSdkStreamResult): Answer<ModelStreamEvent> {
    this.outstanding--;
    this.reader = result.stream.getReader();
    this.signal.addEventListener('abort', this.cancel, { once: true });
    this.status = OPEN;
    return { value: { type: 'messageStart', role: 'assistant' }, done: false };
  }

  /** Reads the next part. */
  private read(): Promise<Answer<ModelStreamEvent>> {
    let pending: PromiseLike<PartRead>;
    try {
      pending = (this.reader as AiSdkStreamReader).read();
    } catch (error) {
      this.ended();
      return Promise.reject(error);
    }
    return Promise.resolve(pending).then(this.onRead, this.onReadFailed);
  }

  /**
   * A read, for an iterator of ours pulling this one (`nextInto`: an invoke whose terminal returns this stream):
   * the answer goes on to the puller's callbacks in the reaction of the provider's read, so the adapter adds no
   * reaction of its own per part there.
   */
  protected override tryDirectPull(): Promise<unknown> | undefined {
    // Only a read: the call's start and the events a part left for later pulls answer through pull().
    if (this.status !== OPEN || this.events.rest !== undefined) return undefined;
    let pending: PromiseLike<PartRead>;
    try {
      pending = (this.reader as AiSdkStreamReader).read();
    } catch (error) {
      this.ended();
      return this.deliverDirect(Promise.reject(error)) as Promise<unknown>;
    }
    return Promise.resolve(pending).then(
      (this.onReadDirect ??= (read) => this.deliverDirect(this.steppedOrFailed(read), read)),
      (this.onReadFailedDirect ??= (error) => this.deliverDirect(this.failed(error))),
    );
  }

  // Made on the first direct pull (see onRead for why they only call methods).
  private onReadDirect: ((read: PartRead) => unknown) | undefined;
  private onReadFailedDirect: ((error: unknown) => unknown) | undefined;

  /** What {@link ResponseStream.stepped} answers, a failure as a rejected promise. */
  private steppedOrFailed(read: PartRead): Answer<ModelStreamEvent> | Promise<Answer<ModelStreamEvent>> {
    try {
      return this.stepped(read);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** What a failed read answers: the stream ended, the failure as a rejected promise. */
  private failed(error: unknown): Promise<never> {
    this.ended();
    return Promise.reject(error);
  }

  /** A part arrived (or the end): its first event goes out, the others wait for their pulls. */
  private stepped(read: PartRead): Answer<ModelStreamEvent> | Promise<Answer<ModelStreamEvent>> {
    // A cancelled read ends the stream early: that is no answer, whatever arrived.
    if (this.signal.aborted) this.fail(this.signal.reason);
    if (read.done) {
      this.outstanding--;
      this.status = DONE;
      this.close(true);
      return END;
    }
    const { events } = this;
    events.clear();
    try {
      this.parts.read(read.value, events);
    } catch (error) {
      events.rest = undefined;
      this.fail(error);
    }
    const { first } = events;
    // Most parts become no event (a stream's start, a text's start and end): read on.
    if (first === undefined) return this.read();
    this.outstanding--;
    return { value: first, done: false };
  }

  /** Ends the stream with `error`: released, then thrown. */
  private fail(error: unknown): never {
    this.ended();
    throw error;
  }

  /** Ends the stream early: the answer is a failure, the stream released. */
  private ended(): void {
    this.outstanding--;
    this.status = DONE;
    this.close(false);
  }

  /** What the generator's `finally` does: the listener removed, the stream cancelled unless it ended, the lock released. */
  private close(ended: boolean): void {
    const reader = this.reader as AiSdkStreamReader;
    this.signal.removeEventListener('abort', this.cancel);
    if (!ended) release(reader, undefined);
    try {
      reader.releaseLock();
    } catch {
      // A reader whose stream failed may refuse; there is nothing left to release.
    }
  }
}
