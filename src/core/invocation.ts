/**
 * The per-event path of one invoke: the async iterator `registry.invoke()`
 * returns, and the decision, event by event, of what its consumer receives;
 * its states, its start and its ends are in `invocation-lifecycle.ts`, and
 * what happens once per invoke in `phases.ts`, `compose.ts` and
 * `closing.ts`. Why a hand-written iterator, not an `async function*`: it
 * sits on every event of every model stream, where a generator layer of our
 * own would double the cost of a stage with no handlers; this one adds one
 * promise reaction per event and allocates nothing per event.
 */
import type { ResolvedChain } from './chain';
import type { LayerGenerator } from './layer';
import { DONE, END, IDLE, InvocationLifecycle, RELEASED, RUNNING } from './invocation-lifecycle';
import type { Answer, QueuedIterator } from './queued-iterator';

/** One invoke. Created by `MiddlewareRegistry.invoke`. */
export class Invocation<TEvent> extends InvocationLifecycle<TEvent> {
  /**
   * An invoke that lives as long as the class and never runs. Why: V8 holds
   * the hidden classes of class instances only weakly; when a full collection
   * finds no live invoke it drops them, and every function compiled against
   * them is deoptimised ("weak objects" in `node --trace-deopt`) until it warms
   * up again, which a process with allocation-heavy neighbours pays over and
   * over (`gc_pressure`). A live instance, with its `InvokeRun`, keeps them.
   * A static field, so that no bundler drops it as unused.
   */
  // Stryker disable ArrayDeclaration,ArrowFunction: this invoke never runs, so what its chain and terminal hold is never read.
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
  // Stryker restore ArrayDeclaration,ArrowFunction

  /**
   * One pull: a `.then` chain for a native async generator (whose `next()` returns a native promise and never
   * throws), since an async function would cost a second promise and more promise-job turns per event; else `step()`.
   */
  protected pull(): Promise<Answer<TEvent>> {
    const status = this.status;
    // Stryker disable next-line ConditionalExpression,BlockStatement: the per-event shortcut; step() delivers the same (test/core/native-pull.test.ts pins that), only slower.
    if (status === RUNNING && this.native && this.queued === undefined && !this.signalAborted()) {
      return this.pullInner(this.onPulled, this.onPullFailed);
    }
    if (status === IDLE) return this.begin();
    if (status === RELEASED || status === DONE) {
      this.status = DONE;
      // Stryker disable next-line UpdateOperator: the count only decides whether a call waits for the answer before it; too high, calls wait for answers already given, with the same results.
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
    // Stryker disable next-line ConditionalExpression,LogicalOperator: an event as it came in is never a promise; comparing with it only skips the prototype walk of instanceof. With || a held event goes out without the count-down, which only decides whether a call waits for the answer before it (too high, with the same results).
    if (delivered !== pulled && delivered instanceof Promise) return delivered;
    // Stryker disable next-line UpdateOperator: the count only decides whether a call waits for the answer before it; too high, calls wait for answers already given, with the same results.
    this.outstanding--;
    return delivered;
  }

  /**
   * Pulls on past a held candidate, within the same consumer pull. Only the shortcut's callback gets here, so the
   * layer promises natively; an abort since the last check (the guard may have caused it) runs no more of the chain.
   */
  private pullOn(): Promise<Answer<TEvent>> {
    // Stryker disable next-line ConditionalExpression: the per-event shortcut; step() delivers the same, only slower.
    if (!this.signalAborted()) return this.pullInner(this.onPulled, this.onPullFailed);
    return this.step(undefined);
  }

  /**
   * The per-event shortcut, for an iterator of ours pulling this invoke (`nextThen`): the answer goes on to the
   * puller's callbacks in the reaction that made it, so the invoke adds no reaction of its own per event.
   */
  protected override pullThrough(): Promise<unknown> | undefined {
    // The shortcut's conditions (see pull()); else the puller's callbacks wait for the answer of next().
    if (this.status !== RUNNING || !this.native || this.queued !== undefined || this.signalAborted()) return undefined;
    return this.pullInner(
      // Answered as pulled() answers, or failed as onPullFailed fails the invoke, then handed to the puller.
      (this.onPulledThrough ??= (pulled) => this.handOn(this.pulled(pulled), pulled)),
      (this.onPullFailedThrough ??= (error) => this.handOn(this.onPullFailed(error))),
    );
  }

  // Made on the first pull through, which most invokes never take (see onPulled for why they only call methods).
  private onPulledThrough: ((pulled: IteratorResult<unknown, void>) => unknown) | undefined;
  private onPullFailedThrough: ((error: unknown) => unknown) | undefined;

  /**
   * Pulls the outermost layer, which promises natively, and hands its result to the callbacks: in the layer's own
   * reaction when it is an iterator of ours (`nextThen`), so a stack of our iterators costs one reaction per event.
   */
  private pullInner<TResult>(
    onPulled: (pulled: IteratorResult<unknown, void>) => TResult | Promise<TResult>,
    onFailed: (error: unknown) => TResult | Promise<TResult>,
  ): Promise<TResult> {
    const inner = this.inner;
    return this.ours
      ? (inner as unknown as QueuedIterator<unknown>).nextThen(onPulled, onFailed)
      : (inner as LayerGenerator).next().then(onPulled, onFailed);
  }

  private readonly onPullFailed = (error: unknown): Promise<never> => {
    this.inner = undefined;
    return this.failPull(error);
  };

  /** A pull that needs more than one event, or a layer that is not a native generator; `starting` is an asynchronous start. */
  protected async step(starting: Promise<LayerGenerator> | undefined): Promise<Answer<TEvent>> {
    // Whether the answer is the end of the chain's own promise, which counts itself down (`complete`).
    // Stryker disable next-line BooleanLiteral: true leaves out the count-down, which only decides whether a call waits for the answer before it; too high, calls wait for answers already given, with the same results.
    let answersItself = false;
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
      // Stryker disable next-line UpdateOperator,ConditionalExpression: the count only decides whether a call waits for the answer before it; too high, calls wait for answers already given, with the same results. (Counting down when the answer counts itself down is too early, which "waits while the inner chains are closed, after a hand-written outermost layer" catches.)
      if (!answersItself) this.outstanding--;
    }
  }

  /**
   * The hold decision, for one result pulled from the outermost layer: the
   * event to deliver, the promise of the final one when the chain ended (which
   * answers the consumer's call itself: `complete`), or
   * undefined when the event is held and the next one must be pulled first.
   * The guard sees each event once.
   */
  private accept(pulled: IteratorResult<unknown, void>): Answer<TEvent> | Promise<Answer<TEvent>> | undefined {
    this.throwIfAborted();
    if (pulled.done === true) return this.complete();
    const event = pulled.value;
    if (event === undefined) throw this.invalidEvent();
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
}
