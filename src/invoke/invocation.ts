/**
 * The per-event path of one invoke: the async iterator `registry.invoke()`
 * returns, and the decision, event by event, of what its consumer receives;
 * what happens once per invoke is in `phases.ts`, `compose.ts` and
 * `closing.ts`. Why a hand-written iterator, not an `async function*`: it
 * sits on every event of every model stream, where a generator layer of our
 * own would double the cost of a stage with no handlers; this one adds one
 * promise reaction per event and allocates nothing per event.
 *
 * | state    | `inner`                                       | `held`, `queued` (hold mode)          | next states                          |
 * | -------- | --------------------------------------------- | ------------------------------------- | ------------------------------------ |
 * | IDLE     | undefined: nothing ran                        | undefined                             | first pull: RUNNING; return: DONE    |
 * | RUNNING  | the outermost layer while the chain is open;  | the result candidate; an event        | chain ends: RELEASED (hold mode) or  |
 * |          | undefined in the Input phase and once the     | released behind it, delivered at the  | DONE (pass mode); an error or        |
 * |          | chain has ended or thrown                     | next pull                             | return/throw: DONE                   |
 * | RELEASED | undefined: the final event was delivered      | undefined                             | next pull: DONE                      |
 * | DONE     | undefined: settled                            | undefined                             | none: every pull ends                |
 *
 * `last` is the last event pulled (events are never undefined, so undefined
 * means none came); `native`: `inner` is a native async generator, whose
 * pulls take the `.then` path. The mode is fixed per invoke (MW-003): in pass
 * mode every event goes out as it comes; in hold mode (Output handlers, a
 * result schema or a state binding) a result candidate waits until the next
 * event or the end shows whether it is the last (`accept`).
 */
import * as messages from '../errors/messages';
import type { ResolvedChain } from '../registry/chain';
import type { InvokeOptions, Terminal } from '../stage/types';
import { isThenable } from '../util/thenable';
import { closeOpen, failInvoke, settle, stopInvoke, SUCCESS, type ClosingFailure } from './closing';
import { nativeNext, type LayerGenerator } from './layer';
import { finish, start } from './phases';
import { QueuedIterator, type Answer } from './queued-iterator';
import { InvokeRun } from './run';

const IDLE = 0;
const RUNNING = 1;
const RELEASED = 2;
const DONE = 3;

const END: IteratorReturnResult<void> = Object.freeze({ value: undefined, done: true });

/** One invoke. Created by `MiddlewareRegistry.invoke`. */
export class Invocation<TEvent> extends QueuedIterator<TEvent> {
  private status = IDLE;
  private inner: LayerGenerator | undefined;
  private native = false;
  private last: unknown;
  private held: unknown;
  private queued: unknown;
  private readonly hold: boolean;
  private readonly guard: ((event: unknown) => boolean) | undefined;
  private readonly signal: AbortSignal | undefined;
  /** The once-per-invoke side; a private field of the language, so the generator users get cannot reach its chain (MW-037). */
  readonly #run: InvokeRun;

  /**
   * An invoke that lives as long as the class and never runs. Why: V8 holds
   * the hidden classes of class instances only weakly; when a full collection
   * finds no live invoke it drops them, and every function compiled against
   * them is deoptimised ("weak objects" in `node --trace-deopt`) until it warms
   * up again, which a process with allocation-heavy neighbours pays over and
   * over (`gc_pressure`). A live instance, with its `InvokeRun`, keeps them.
   * A static field, so that no bundler drops it as unused.
   */
  // eslint-disable-next-line no-unused-private-class-members -- never read: being alive is its whole job (above)
  static readonly #shapeKeeper: unknown = new Invocation(
    Object.freeze({
      stage: Object.freeze({ name: 'shape keeper' }) as ResolvedChain['stage'],
      input: [],
      wrap: [],
      output: [],
      instrumentations: [],
    }),
    undefined,
    () => undefined as never,
    {},
  );

  /** Prepares the invoke; nothing runs until the first `next()`. */
  constructor(chain: ResolvedChain, context: unknown, terminal: Terminal<unknown, unknown>, options: InvokeOptions) {
    super();
    this.#run = new InvokeRun(chain, context, terminal, options.state, options.signal);
    this.signal = options.signal;
    this.guard = chain.stage.isResult;
    this.hold = chain.output.length > 0 || chain.stage.resultSchema !== undefined || options.state !== undefined;
  }

  /**
   * One pull: a `.then` chain for a native async generator (whose `next()` returns a native promise and never
   * throws), since an async function would cost a second promise and more promise-job turns per event; else `step()`.
   */
  protected pull(): Promise<Answer<TEvent>> {
    const status = this.status;
    const signal = this.signal;
    if (status === RUNNING && this.native && this.queued === undefined && !signal?.aborted) {
      return (this.inner as LayerGenerator).next().then(this.onPulled, this.onPullFailed);
    }
    if (status === IDLE) return this.begin();
    if (status === RELEASED || status === DONE) {
      this.status = DONE;
      this.outstanding--;
      return Promise.resolve(END);
    }
    return this.step(undefined);
  }

  /** The first pull: starts the invoke and, when that was synchronous, pulls at once. */
  private begin(): Promise<Answer<TEvent>> {
    this.status = RUNNING;
    let started: LayerGenerator | Promise<LayerGenerator>;
    try {
      this.throwIfAborted();
      started = start(this.#run);
    } catch (error) {
      return this.failPull(error);
    }
    if (started instanceof Promise) return this.step(started);
    this.setInner(started);
    return this.pull();
  }

  private setInner(inner: LayerGenerator): void {
    this.inner = inner;
    this.native = inner.next === nativeNext;
  }

  private readonly onPulled = (pulled: IteratorResult<unknown, void>): Answer<TEvent> | Promise<Answer<TEvent>> => {
    let delivered: Answer<TEvent> | Promise<Answer<TEvent>> | undefined;
    try {
      delivered = this.accept(pulled);
    } catch (error) {
      return this.failPull(error);
    }
    // A held candidate: step() pulls on and ends this pull. The event as it came in skips the prototype walk of `instanceof`.
    if (delivered === undefined) return this.step(undefined);
    if (delivered !== pulled && delivered instanceof Promise) return delivered.then(this.answered(), this.failPull);
    this.outstanding--;
    return delivered;
  };

  private readonly onPullFailed = (error: unknown): Promise<never> => {
    this.inner = undefined;
    return this.failPull(error);
  };

  /** Ends the pull in progress with the invoke's failure. */
  private readonly failPull = (error: unknown): Promise<never> => {
    const rethrow = this.rethrow();
    return this.fail(error).then(rethrow, rethrow);
  };

  /** A pull that needs more than one event, or a layer that is not a native generator; `starting` is an asynchronous start. */
  private async step(starting: Promise<LayerGenerator> | undefined): Promise<Answer<TEvent>> {
    try {
      if (starting !== undefined) this.setInner(await starting);
      const queued = this.queued;
      if (queued !== undefined) {
        this.queued = undefined;
        return { value: queued as TEvent, done: false };
      }
      for (;;) {
        // Before each pull too, so that an abort between two pulls runs no more of the chain.
        this.throwIfAborted();
        let pulled: IteratorResult<unknown, void>;
        try {
          pulled = await (this.inner as LayerGenerator).next();
        } catch (error) {
          this.inner = undefined;
          throw error;
        }
        const delivered = this.accept(pulled);
        if (delivered instanceof Promise) return await delivered;
        if (delivered !== undefined) return delivered;
      }
    } catch (error) {
      throw await this.fail(error);
    } finally {
      this.outstanding--;
    }
  }

  /**
   * The hold decision, for one result pulled from the outermost layer: the
   * event to deliver, the promise of the final one when the chain ended, or
   * undefined when the event is held and the next one must be pulled first.
   * The guard sees each event once.
   */
  private accept(pulled: IteratorResult<unknown, void>): Answer<TEvent> | Promise<Answer<TEvent>> | undefined {
    this.throwIfAborted();
    if (pulled.done === true) return this.complete();
    const event = pulled.value;
    if (event === undefined) throw messages.invalidEvent(this.#run.stageName);
    this.last = event;
    if (!this.hold) return pulled as Answer<TEvent>;
    const guard = this.guard;
    const candidate = guard === undefined || guard(event);
    // Not a result, and nothing held before it: it goes out as it came in.
    if (!candidate && this.held === undefined) return pulled as Answer<TEvent>;
    return this.holdBack(event, candidate);
  }

  /** Hold mode: releases the candidate held before `event`, if any; holds `event` when it is a candidate, else queues it behind. */
  private holdBack(event: unknown, candidate: boolean): Answer<TEvent> | undefined {
    const held = this.held;
    if (!candidate) {
      this.held = undefined;
      this.queued = event;
      return { value: held as TEvent, done: false };
    }
    this.held = event;
    return held === undefined ? undefined : { value: held as TEvent, done: false };
  }

  /**
   * The chain completed: the inner chains left open are closed (MW-016), then the result goes out (`finish`).
   * Synchronous unless closing or the Output phase is not, so a pass-mode invoke ends in the pull's own callback.
   */
  private complete(): Answer<TEvent> | Promise<Answer<TEvent>> {
    this.inner = undefined;
    const run = this.#run;
    run.state?.chainCompleted();
    const closing = closeOpen(run, undefined);
    return closing === undefined ? this.deliver() : this.deliverAfter(closing);
  }

  private async deliverAfter(closing: Promise<ClosingFailure | undefined>): Promise<Answer<TEvent>> {
    const failure = await closing;
    if (failure !== undefined) throw failure.error;
    return this.deliver();
  }

  /** The result check, then the end of a pass-mode invoke or the final event of a hold-mode one. */
  private deliver(): Answer<TEvent> | Promise<Answer<TEvent>> {
    const run = this.#run;
    const { last, hold, guard } = this;
    if (last === undefined) throw run.noResult({ present: false });
    const result = hold ? this.held : last;
    if (result === undefined || (!hold && guard !== undefined && !guard(last))) throw run.noResult({ present: true, value: last });
    this.held = undefined;
    if (!hold) {
      settle(run, SUCCESS, result);
      this.status = DONE;
      return END;
    }
    const value = finish(run, result);
    if (isThenable(value)) return this.release(value);
    this.status = RELEASED;
    return { value: value as TEvent, done: false };
  }

  private async release(pending: PromiseLike<unknown>): Promise<Answer<TEvent>> {
    const value = await pending;
    this.status = RELEASED;
    return { value: value as TEvent, done: false };
  }

  /** Ends the invoke after an error: closes what is open and decides which error the consumer sees. */
  private fail(error: unknown): Promise<unknown> {
    return this.status === DONE ? Promise.resolve(error) : failInvoke(this.#run, this.end(), error);
  }

  /** Stops the invoke at the consumer's request (`return()`, `throw()`). */
  protected stop(rethrow: boolean, error: unknown): Promise<Answer<TEvent>> {
    const running = this.status === RUNNING;
    return stopInvoke(this.#run, running, this.end(), rethrow, error).then(this.answered(), this.rethrow());
  }

  /** Marks the invoke DONE and hands over the outermost layer if it is open, for closing. */
  private end(): LayerGenerator | undefined {
    const inner = this.inner;
    this.status = DONE;
    this.inner = undefined;
    return inner;
  }

  /** Fails with `ERR_ABORTED` when the invoke's own signal has aborted (one of the check points of MW-023). */
  private throwIfAborted(): void {
    const signal = this.signal;
    if (signal?.aborted === true) throw messages.aborted(this.#run.stageName, signal.reason);
  }
}
