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
 *       yield* eventsOf(parts, read.value);
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
import { ResponseParts } from './stream-parts';

/** Nothing ran yet. */
const IDLE = 0;
/** The provider's stream is open: between two pulls, or one pending. */
const OPEN = 1;
/** Ended: every pull ends at once. */
const DONE = 2;

const END: IteratorReturnResult<void> = Object.freeze({ value: undefined, done: true });

/** Cancels the provider's stream without waiting for it; a failure to cancel changes nothing. */
export function release(reader: AiSdkStreamReader, reason: unknown): void {
  try {
    Promise.resolve(reader.cancel(reason)).catch(() => undefined);
  } catch {
    // A stream that cannot be cancelled is dropped all the same.
  }
}

/** One call's events (see the module's header for the generator it behaves as). */
export class ResponseStream extends SerialAsyncGenerator<ModelStreamEvent> {
  private status = IDLE;
  private reader: AiSdkStreamReader | undefined;
  private readonly parts = new ResponseParts();
  /** The events of the last part read; those from `delivered` on are still to go out. */
  private readonly events: ModelStreamEvent[] = [];
  private delivered = 0;
  // Per-iterator callbacks that only call methods: methods keep their optimised code across collections (see Invocation).
  private readonly onOpened = (result: AiSdkStreamResult): Answer<ModelStreamEvent> => this.opened(result);
  private readonly onRead = (read: {
    readonly done: boolean;
    readonly value?: unknown;
  }): Answer<ModelStreamEvent> | Promise<Answer<ModelStreamEvent>> => this.stepped(read);
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
      const { events } = this;
      if (this.delivered < events.length) {
        this.outstanding--;
        return Promise.resolve({ value: events[this.delivered++] as ModelStreamEvent, done: false });
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
    let pending: PromiseLike<{ readonly done: boolean; readonly value?: unknown }>;
    try {
      pending = (this.reader as AiSdkStreamReader).read();
    } catch (error) {
      this.ended();
      return Promise.reject(error);
    }
    return Promise.resolve(pending).then(this.onRead, this.onReadFailed);
  }

  /** A part arrived (or the end): its first event goes out, the others wait for their pulls. */
  private stepped(read: {
    readonly done: boolean;
    readonly value?: unknown;
  }): Answer<ModelStreamEvent> | Promise<Answer<ModelStreamEvent>> {
    // A cancelled read ends the stream early: that is no answer, whatever arrived.
    if (this.signal.aborted) this.fail(this.signal.reason);
    if (read.done) {
      this.outstanding--;
      this.status = DONE;
      this.close(true);
      return END;
    }
    const { events } = this;
    events.length = 0;
    this.delivered = 0;
    try {
      this.parts.read(read.value, events);
    } catch (error) {
      this.fail(error);
    }
    // Most parts become no event (a stream's start, a text's start and end): read on.
    if (events.length === 0) return this.read();
    this.delivered = 1;
    this.outstanding--;
    return { value: events[0] as ModelStreamEvent, done: false };
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
