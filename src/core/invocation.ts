/**
 * One invoke: the async iterator `registry.invoke()` returns, from the first
 * pull that starts it, through the decision, event by event, of what its
 * consumer receives, to the ways it ends (the result delivered, a failure, a
 * stop at the consumer's request). What happens once per invoke is in
 * `phases.ts` (start and finish), `compose.ts` (the onion) and `closing.ts`;
 * which event is the result, in `result-rule.ts`.
 *
 * Why a hand-written iterator, not an `async function*`: it sits on every
 * event of every model stream, where a generator layer of our own would
 * double the cost of a stage with no handlers; this one adds one promise
 * reaction per event and allocates nothing per event (its base class and the
 * checks that let it pull a layer with a bare `.then` are in `fast-path/`).
 *
 * | status     | `inner`                                       | `held`, `queued` (hold mode)          | next status                          |
 * | ---------- | --------------------------------------------- | ------------------------------------- | ------------------------------------ |
 * | 'idle'     | undefined: nothing ran                        | undefined                             | first pull: running; return: done    |
 * | 'running'  | the outermost layer while the chain is open;  | the result candidate; an event        | chain ends: released (hold mode) or  |
 * |            | undefined in the Input phase and once the     | released behind it, delivered at the  | done (pass mode); an error or        |
 * |            | chain has ended or thrown                     | next pull                             | return/throw: done                   |
 * | 'released' | undefined: the final event was delivered      | undefined                             | next pull: done                      |
 * | 'done'     | undefined: settled                            | undefined                             | none: every pull ends                |
 *
 * `native`: `inner` is a native async generator or a hand-written iterator
 * that promises as much (`hasNativeNext`), whose pulls take the `.then` path;
 * `ours`: it is an iterator of ours, pulled with `nextInto`.
 *
 * @packageDocumentation
 */
import * as messages from './messages';
import type { ErrorSite } from './errors';
import type { MiddlewareError } from './errors';
import type { ResolvedChain } from './chain';
import type { InvokeOptions, StateBinding, Terminal } from './types';
import { closeStarted, failInvoke, settle, stopInvoke, type ClosingFailure } from './closing';
import {
  hasNativeNext,
  isOwnIterator,
  OwnedAbortController,
  SerialAsyncGenerator,
  type Answer,
  type ChainOwner,
  type TrackedChain,
} from './fast-path';
import type { InvokeFrame, Later } from './invoke-frame';
import type { LayerGenerator } from './layer';
import type { InvokeObservation } from './observation';
import { finish, finishLater, LATER, start } from './phases';
import { acceptEvent, finalResult, holdsResult, type ResultHolder } from './result-rule';
import type { Link } from './signals';
import type { StateIsolation } from './state';
import type { AnyStage } from './types';

/** Where an invoke is in its life (see the table above). */
export type InvocationStatus = 'idle' | 'running' | 'released' | 'done';

/** The answer of every pull once the invoke has ended. */
const END: IteratorReturnResult<void> = Object.freeze({ value: undefined, done: true });

/** One invoke. Created by `MiddlewareRegistry.invoke`. */
export class Invocation<TEvent> extends SerialAsyncGenerator<TEvent> implements InvokeFrame, ResultHolder {
  /**
   * An invoke that lives as long as the class and never runs. Why: V8 holds the hidden classes of class instances
   * only weakly; when a full collection finds no live invoke it drops them, and every function compiled against them
   * is deoptimised ("weak objects" in `node --trace-deopt`) until it warms up again, which a process with
   * allocation-heavy neighbours pays over and over (`gc_pressure`). A static field, so that no bundler drops it as
   * unused: a store of its own elsewhere (a module's array that nothing reads) is tree-shaken out of the build.
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

  // The iteration.
  private status: InvocationStatus = 'idle';
  private inner: LayerGenerator | undefined;
  private native = false;
  /** `inner` is an iterator of ours, pulled with `nextInto` (`fast-path/serial-async-generator.ts`). */
  private ours = false;

  // The result rule (`result-rule.ts`).
  last: unknown;
  held: unknown;
  queued: unknown;
  readonly hold: boolean;
  readonly guard: ((event: unknown) => boolean) | undefined;

  // The once-per-invoke side (`invoke-frame.ts`).
  readonly stage: AnyStage;
  readonly stageName: string;
  readonly signal: AbortSignal | undefined;
  readonly binding: StateBinding<unknown> | undefined;
  observation: InvokeObservation | undefined = undefined;
  state: StateIsolation<unknown> | undefined = undefined;
  settled = false;
  started: LayerGenerator[] | undefined = undefined;
  open: Set<TrackedChain> | undefined = undefined;
  owner: ChainOwner | undefined = undefined;
  links: Link[] | undefined = undefined;
  later: Promise<Later> | undefined = undefined;
  /** The signal's controller when the library made it: its flag is read instead of the signal (`fast-path/owned-abort-controller.ts`). */
  private readonly flag: OwnedAbortController | undefined;
  /**
   * The resolved chain, shared by every invoke of the same registry version: a private field of the language, so the
   * generator users get cannot reach it (MW-037).
   */
  readonly #chain: ResolvedChain;

  /** Prepares the invoke; nothing runs until the first `next()`. */
  constructor(
    chain: ResolvedChain,
    readonly context: unknown,
    readonly terminal: Terminal<unknown, unknown>,
    options: InvokeOptions,
  ) {
    super();
    this.#chain = chain;
    this.stage = chain.stage;
    this.stageName = chain.stage.name;
    this.binding = options.state;
    this.signal = options.signal;
    this.flag = options.signal === undefined ? undefined : OwnedAbortController.of(options.signal);
    this.guard = chain.stage.isResult;
    this.hold = holdsResult(chain, options.state);
  }

  // ---- The per-event path.

  /**
   * One pull: a `.then` chain for a native async generator (whose `next()` returns a native promise and never
   * throws), since an async function would cost a second promise and more promise-job turns per event; else `step()`.
   */
  protected pull(): Promise<Answer<TEvent>> {
    const status = this.status;
    if (status === 'running' && this.native && this.queued === undefined && !this.signalAborted()) {
      return this.pullInner(this.onPulled, this.onPullFailed);
    }
    if (status === 'idle') return this.begin();
    if (status === 'released' || status === 'done') {
      this.status = 'done';
      this.outstanding--;
      return Promise.resolve(END);
    }
    return this.step(undefined);
  }

  /**
   * The callback of each pull, one per invoke; the work is in {@link Invocation.pulled}, a method. Why: V8 keeps a
   * function's optimised code only while a function object using it lives; each invoke's callback is a new one, so
   * after a full collection with no invoke running (`gc_pressure`), a callback holding all the work would run
   * unoptimised again for hundreds of events. The method is one object for all invokes and keeps its code; only
   * this one-line callback starts over. (A bound method would start over not at all, but costs more per call.)
   */
  private readonly onPulled = (pulled: IteratorResult<unknown, void>): Answer<TEvent> | Promise<Answer<TEvent>> => this.pulled(pulled);

  /** One pulled result: delivered at once, held, or the end of the chain (see {@link Invocation.onPulled}). */
  private pulled(pulled: IteratorResult<unknown, void>): Answer<TEvent> | Promise<Answer<TEvent>> {
    let delivered: Answer<TEvent> | Promise<Answer<TEvent>> | undefined;
    try {
      delivered = this.accept(pulled);
    } catch (error) {
      return this.failPull(error);
    }
    // A held candidate: the next result decides, pulled the same way (or by step() when the shortcut no longer applies).
    if (delivered === undefined) return this.pullOn();
    // The end of the chain, answering the call itself (`complete`).
    if (delivered !== pulled && delivered instanceof Promise) return delivered;
    this.outstanding--;
    return delivered;
  }

  /**
   * Pulls on past a held candidate, within the same consumer pull. Only the shortcut's callback gets here, so the
   * layer promises natively; an abort since the last check (the guard may have caused it) runs no more of the chain.
   */
  private pullOn(): Promise<Answer<TEvent>> {
    if (!this.signalAborted()) return this.pullInner(this.onPulled, this.onPullFailed);
    return this.step(undefined);
  }

  /**
   * The per-event shortcut, for an iterator of ours pulling this invoke (`nextInto`): the answer goes on to the
   * puller's callbacks in the reaction that made it, so the invoke adds no reaction of its own per event.
   */
  protected override tryDirectPull(): Promise<unknown> | undefined {
    // The shortcut's conditions (see pull()); else the puller's callbacks wait for the answer of next().
    if (this.status !== 'running' || !this.native || this.queued !== undefined || this.signalAborted()) return undefined;
    return this.pullInner(
      // Answered as pulled() answers, or failed as onPullFailed fails the invoke, then handed to the puller.
      (this.onPulledDirect ??= (pulled) => this.deliverDirect(this.pulled(pulled), pulled)),
      (this.onPullFailedDirect ??= (error) => this.deliverDirect(this.onPullFailed(error))),
    );
  }

  // Made on the first direct pull, which most invokes never take (see onPulled for why they only call methods).
  private onPulledDirect: ((pulled: IteratorResult<unknown, void>) => unknown) | undefined;
  private onPullFailedDirect: ((error: unknown) => unknown) | undefined;

  /**
   * Pulls the outermost layer, which promises natively, and hands its result to the callbacks: in the layer's own
   * reaction when it is an iterator of ours (`nextInto`), so a stack of our iterators costs one reaction per event.
   */
  private pullInner<TResult>(
    onPulled: (pulled: IteratorResult<unknown, void>) => TResult | Promise<TResult>,
    onFailed: (error: unknown) => TResult | Promise<TResult>,
  ): Promise<TResult> {
    const inner = this.inner;
    return this.ours
      ? (inner as unknown as SerialAsyncGenerator<unknown>).nextInto(onPulled, onFailed)
      : (inner as LayerGenerator).next().then(onPulled, onFailed);
  }

  private readonly onPullFailed = (error: unknown): Promise<never> => {
    this.inner = undefined;
    return this.failPull(error);
  };

  /** A pull that needs more than one event, or a layer that is not a native generator; `starting` is an asynchronous start. */
  private async step(starting: Promise<LayerGenerator> | undefined): Promise<Answer<TEvent>> {
    // Whether the answer is the end of the chain's own promise, which counts itself down (`complete`).
    let answersItself = false;
    try {
      if (starting !== undefined) this.setInner(await starting);
      // An event that released the held candidate before it (`result-rule.ts`) goes out first.
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
        if (delivered instanceof Promise) {
          answersItself = true;
          // Not awaited: it has failed the invoke itself if it rejects, so the catch below must not fail it again.
          // eslint-disable-next-line @typescript-eslint/return-await -- awaiting would run the catch on a failure already handled
          return delivered;
        }
        if (delivered !== undefined) return delivered;
      }
    } catch (error) {
      throw await this.fail(error);
    } finally {
      if (!answersItself) this.outstanding--;
    }
  }

  /**
   * One result pulled from the outermost layer: the event to deliver, the
   * promise of the final one when the chain ended (which answers the
   * consumer's call itself: `complete`), or undefined when the event is held
   * and the next one must be pulled first (`result-rule.ts`).
   */
  private accept(pulled: IteratorResult<unknown, void>): Answer<TEvent> | Promise<Answer<TEvent>> | undefined {
    this.throwIfAborted();
    if (pulled.done === true) return this.complete();
    if (pulled.value === undefined) throw messages.invalidEvent(this.stageName);
    return acceptEvent(this, pulled);
  }

  // ---- The start.

  /** The first pull: starts the invoke and, when that was synchronous, pulls at once. */
  private begin(): Promise<Answer<TEvent>> {
    this.status = 'running';
    let started: LayerGenerator | Promise<LayerGenerator>;
    try {
      this.throwIfAborted();
      started = start(this, this.#chain);
    } catch (error) {
      return this.failPull(error);
    }
    if (started instanceof Promise) return this.step(started);
    this.setInner(started);
    return this.pull();
  }

  private setInner(inner: LayerGenerator): void {
    this.inner = inner;
    this.native = hasNativeNext(inner);
    this.ours = isOwnIterator(inner);
  }

  // ---- The ends.

  /** Ends the pull in progress with the invoke's failure (a method: only ever called, so no invoke makes a closure for it). */
  private failPull(error: unknown): Promise<never> {
    const rethrow = this.rethrow();
    return this.fail(error).then(rethrow, rethrow);
  }

  /**
   * The chain completed: the inner chains left open are closed (MW-016), then the result goes out (`finish`).
   * Synchronous unless closing or the Output phase is not, so a pass-mode invoke ends in the pull's own callback.
   * A promise it returns answers the consumer's call itself: it counts the answer down and, should delivering fail,
   * fails the invoke (`failPull`), so that the pull hands it on as it is, with no reaction of its own.
   */
  private complete(): Answer<TEvent> | Promise<Answer<TEvent>> {
    this.inner = undefined;
    this.state?.chainCompleted();
    const closing = closeStarted(this, Invocation.afterClosing, this as Invocation<unknown>);
    return closing === undefined ? this.deliver() : (closing as Promise<Answer<TEvent>>);
  }

  /**
   * What follows the closing of the inner chains, in the closing's own async step: a failure while closing fails
   * the invoke (MW-021), else the result goes out; either way the call is answered here (see `complete`). A static
   * function rather than a closure, so that an invoke allocates nothing for it.
   */
  private static readonly afterClosing = (
    invoke: Invocation<unknown>,
    failure: ClosingFailure | undefined,
  ): Answer<unknown> | Promise<Answer<unknown>> => {
    let answer: Answer<unknown> | Promise<Answer<unknown>>;
    try {
      if (failure !== undefined) throw failure.error;
      answer = invoke.deliver();
    } catch (error) {
      return invoke.failPull(error);
    }
    // A promise from deliver() is release()'s, which answers the call itself.
    if (answer instanceof Promise) return answer;
    invoke.outstanding--;
    return answer;
  };

  /** The result check, then the end of a pass-mode invoke or the final event of a hold-mode one. */
  private deliver(): Answer<TEvent> | Promise<Answer<TEvent>> {
    const result = finalResult(this);
    if (!this.hold) {
      settle(this, 'success', result);
      this.status = 'done';
      return END;
    }
    const value = finish(this, this.#chain, result);
    if (value === LATER) return this.release(finishLater(this));
    this.status = 'released';
    return { value: value as TEvent, done: false };
  }

  /** The final event of a hold-mode invoke whose Output phase is asynchronous; answers the call itself (see `complete`). */
  private async release(pending: Promise<Later>): Promise<Answer<TEvent>> {
    let value: unknown;
    try {
      value = (await pending).value;
    } catch (error) {
      return this.failPull(error);
    }
    this.status = 'released';
    this.outstanding--;
    return { value: value as TEvent, done: false };
  }

  /** Ends the invoke after an error: closes what is open and decides which error the consumer sees. */
  private fail(error: unknown): Promise<unknown> {
    return failInvoke(this, this.end(), error);
  }

  /** Stops the invoke at the consumer's request (`return()`, `throw()`). */
  protected stop(rethrow: boolean, error: unknown): Promise<Answer<TEvent>> {
    return stopInvoke(this, this.end(), rethrow, error).then(this.answered(), this.rethrow());
  }

  /** Marks the invoke done and hands over the outermost layer if it is open, for closing. */
  private end(): LayerGenerator | undefined {
    const inner = this.inner;
    this.status = 'done';
    this.inner = undefined;
    return inner;
  }

  // ---- Checks and errors.

  /**
   * Whether the invoke's own signal has aborted. Why not always the signal's `aborted`: see
   * `fast-path/owned-abort-controller.ts`; two separate reads, so that the flag's stays monomorphic however many
   * signals the other one sees.
   */
  private signalAborted(): boolean {
    const signal = this.signal;
    // Without a signal, as cheap as the check was before flags: one field read.
    if (signal === undefined) return false;
    const flag = this.flag;
    return flag !== undefined ? flag.aborted : signal.aborted;
  }

  /** Fails with `ERR_ABORTED` when the invoke's own signal has aborted (one of the check points of MW-023). */
  throwIfAborted(): void {
    if (this.signalAborted()) throw messages.aborted(this.stageName, (this.signal as AbortSignal).reason);
  }

  /** Who an error about a handler of this invoke names. */
  culprit(phase: ErrorSite['phase'], handler: string): ErrorSite {
    return { stage: this.stageName, phase, handler };
  }

  /** `ERR_NO_RESULT`, naming the outermost layer, where the missing result surfaced; `last` is the last event, when one came. */
  noResult(last: { readonly present: boolean; readonly value?: unknown }): MiddlewareError {
    return messages.noResult(this.stageName, last, this.#chain.wrap[0]?.name);
  }
}
