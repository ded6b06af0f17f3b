import type { ResolvedChain, ResolvedEntry } from '../registry/chain';
import { MiddlewareError } from '../errors/middleware-error';
import { asGenerator, nativeNext, ReleasingChain, requireACall, StateRecorder, type ChainOwner, type LayerGenerator } from './generators';
import type { InvokeOutcome, LayerInfo } from './instrumentation';
import { InvokeObservation } from './observation';
import * as messages from '../errors/messages';
import type { Culprit } from '../errors/messages';
import { MiddlewareResult } from '../stage/result';
import { parseWithSchema } from '../stage/schema';
import { narrowSignal, neverSignal, type Link } from './signals';
import { isAbortSignal } from '../util/abort-signal';
import { describeValue } from '../util/describe-value';
import { isThenable } from '../util/thenable';
import { StateIsolation } from './state';
import { takeOver } from '../util/take-over';
import type { InvokeOptions, Next, NextOptions, Schema, Terminal } from '../stage/types';

/**
 * Runs one invoke of a stage: the hand-written async iterator that
 * `registry.invoke()` returns.
 *
 * Composition order, outermost first:
 *   Input handlers (a plain loop) ⊃ Output handlers (a plain loop, innermost
 *   transforming first) ⊃ Wrap handlers (the onion) ⊃ terminal.
 *
 * Why a hand-written iterator rather than an `async function*`: it sits on every
 * event of every model stream. An extra generator layer of our own doubles the
 * cost of a stage with no handlers; this shell adds one promise reaction per event.
 * For the same reason `next()` returns the inner layer's own generator, not a
 * wrapper around it (past the first HELD_CHAINS chains of an invoke, see
 * there), and nothing is allocated per event.
 */

type ErasedWrap = (context: unknown, next: unknown, run: unknown) => unknown;
type ErasedInput = (context: unknown) => unknown;
type ErasedOutput = (result: MiddlewareResult<unknown>) => unknown;

const IDLE = 0;
const RUNNING = 1;
/** The final event was delivered; the next pull ends the iteration. */
const RELEASED = 2;
const DONE = 3;

const END: IteratorReturnResult<void> = Object.freeze({ value: undefined, done: true });

/** How an invoke settled (see `settle`). */
const SUCCESS = 0;
const FAILURE = 1;
const CLOSED = 2;
const CLOSED_OUTCOME: InvokeOutcome = Object.freeze({ status: 'closed' });

/**
 * How many inner chains an invoke remembers as they are, until it settles
 * (MW-016). Past these, `next()` returns each chain wrapped, so that it can
 * be forgotten as soon as it ends: a handler making thousands of sequential
 * calls keeps only the open ones. The bound is well above the chains of an
 * ordinary invoke (one per Wrap handler, a few more per retry), which thus
 * pay nothing per event.
 */
const HELD_CHAINS = 32;

/** One invoke. Created by `MiddlewareRegistry.invoke`. */
export class Invocation<TEvent> implements AsyncGenerator<TEvent, void, undefined> {
  private status = IDLE;
  private outstanding = 0;
  private current: Promise<IteratorResult<TEvent, void>> | undefined;
  private inner: LayerGenerator | undefined;
  private chainOpen = false;
  private chainSettled = false;
  /** The first inner chains started by `next()` (at most HELD_CHAINS), closed when the invoke settles. */
  private started: LayerGenerator[] = [];
  /** Later inner chains that have not ended yet; each removes itself when it ends. */
  private open: Set<ReleasingChain> | undefined;
  /** What the later inner chains report their end to (created with the first of them). */
  private owner: ChainOwner | undefined;
  /** Links of narrowed signals given to the first inner chains, released when the invoke settles. */
  private links: Link[] | undefined;
  private isolation: StateIsolation<unknown> | undefined;
  /** The draft of a terminal that is the outermost layer (no Wrap handlers): recorded when the chain completes. */
  private outermostDraft: unknown;
  /** Set only when an instrumentation observes this invoke, so unobserved invokes skip all reporting. */
  private observation: InvokeObservation | undefined;
  /** Whether events are held back for the Output phase (see SPEC MW-003). */
  private readonly hold: boolean;
  private readonly guard: ((event: unknown) => boolean) | undefined;
  private last: unknown;
  private held: unknown;
  private hasHeld = false;
  private queued: unknown;
  private hasQueued = false;
  private readonly signal: AbortSignal | undefined;
  private readonly stageName: string;
  private readonly onPulled: (pulled: IteratorResult<unknown, void>) => IteratorResult<TEvent, void> | Promise<IteratorResult<TEvent, void>>;
  private readonly onPullFailed: (error: unknown) => Promise<never>;
  private readonly onCompleteFailed: (error: unknown) => Promise<never>;
  private readonly afterComplete: (delivered: IteratorResult<TEvent, void>) => IteratorResult<TEvent, void>;
  private readonly afterFail: (outcome: unknown) => never;
  private readonly pullAction: () => Promise<IteratorResult<TEvent, void>>;
  /** Whether the outermost layer is a native async generator (see `pull`). */
  private native = false;

  /**
   * The resolved chain, shared with every invoke resolved from the same
   * registry version. A private field of the language, so that the generator
   * `invoke()` returns gives no way to reach (and change) it (MW-037).
   */
  readonly #chain: ResolvedChain;

  /** Prepares the invoke; nothing runs until the first `next()`. */
  constructor(
    chain: ResolvedChain,
    private readonly context: unknown,
    private readonly terminal: Terminal<unknown, unknown, unknown>,
    private readonly options: InvokeOptions<unknown>,
  ) {
    this.#chain = chain;
    this.signal = options.signal;
    this.stageName = chain.stage.name;
    this.guard = chain.stage.isResult;
    this.hold = chain.output.length > 0 || chain.stage.resultSchema !== undefined || options.state !== undefined;
    // Callbacks are assigned here rather than as arrow-function fields: tools that
    // keep function names (tsx, esbuild's keepNames) would otherwise pay a
    // defineProperty per callback on every invoke.
    this.pullAction = () => this.pull();
    this.onPulled = (pulled: IteratorResult<unknown, void>): IteratorResult<TEvent, void> | Promise<IteratorResult<TEvent, void>> => {
      // The per-event cases, inline: in pass mode, and in hold mode with a guard
      // while nothing is held, a non-result event goes out as it came in.
      const event = pulled.done === true ? undefined : pulled.value;
      const signal = this.signal;
      if (event !== undefined && (signal === undefined || !signal.aborted)) {
        if (!this.hold) {
          this.last = event;
          this.outstanding--;
          return pulled as IteratorResult<TEvent, void>;
        }
        const guard = this.guard;
        if (guard !== undefined && !this.hasHeld) {
          let candidate: boolean;
          try {
            candidate = guard(event);
          } catch (error) {
            return this.fail(error).then(this.afterFail, this.afterFail);
          }
          this.last = event;
          if (!candidate) {
            this.outstanding--;
            return pulled as IteratorResult<TEvent, void>;
          }
          // A candidate: hold it until the next event or the end shows whether it is the result.
          this.held = event;
          this.hasHeld = true;
          return this.step();
        }
      }
      let delivered: IteratorResult<TEvent, void> | Promise<IteratorResult<TEvent, void>> | undefined;
      try {
        delivered = this.accept(pulled);
      } catch (error) {
        return this.fail(error).then(this.afterFail, this.afterFail);
      }
      // A held candidate: keep pulling; step() ends this pull.
      if (delivered === undefined) return this.step();
      if (delivered instanceof Promise) return delivered.then(this.afterComplete, this.onCompleteFailed);
      this.outstanding--;
      return delivered;
    };
    this.onPullFailed = (error: unknown): Promise<never> => {
      this.chainOpen = false;
      return this.fail(error).then(this.afterFail, this.afterFail);
    };
    this.onCompleteFailed = (error: unknown): Promise<never> => this.fail(error).then(this.afterFail, this.afterFail);
    this.afterComplete = (delivered: IteratorResult<TEvent, void>): IteratorResult<TEvent, void> => {
      this.outstanding--;
      return delivered;
    };
    this.afterFail = (outcome: unknown): never => {
      this.outstanding--;
      throw outcome;
    };
  }

  /** The invoke is its own iterator, so `for await` drives it directly. */
  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Pulls the next event. Calls made while one is pending are queued, as with native generators. */
  next(): Promise<IteratorResult<TEvent, void>> {
    // `enqueue(this.pullAction)`, written out: this is the per-event call.
    if (this.outstanding++ === 0) return (this.current = this.pull());
    return (this.current = (this.current as Promise<IteratorResult<TEvent, void>>).then(this.pullAction, this.pullAction));
  }

  /** Stops the invoke: closes every open layer (innermost first); writes no state. */
  return(): Promise<IteratorResult<TEvent, void>> {
    return this.enqueue(() => this.close(false, undefined));
  }

  /** Stops the invoke like `return()`, then rejects with `error`. */
  throw(error: unknown): Promise<IteratorResult<TEvent, void>> {
    return this.enqueue(() => this.close(true, error));
  }

  /** Supports `await using`; same as `return()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  private enqueue(action: () => Promise<IteratorResult<TEvent, void>>): Promise<IteratorResult<TEvent, void>> {
    if (this.outstanding++ === 0) return (this.current = action());
    return (this.current = (this.current as Promise<IteratorResult<TEvent, void>>).then(action, action));
  }

  private async step(): Promise<IteratorResult<TEvent, void>> {
    try {
      // `pull()` answers every pull after the end itself, so only IDLE and RUNNING get here.
      if (this.status === IDLE) await this.start();
      if (this.hasQueued) {
        const event = this.queued;
        this.queued = undefined;
        this.hasQueued = false;
        return { value: event as TEvent, done: false };
      }
      const inner = this.inner as LayerGenerator;
      for (;;) {
        // Checked before each pull too, so that an abort between two pulls runs no more of the chain.
        this.throwIfAborted();
        let pulled: IteratorResult<unknown, void>;
        try {
          pulled = await inner.next();
        } catch (error) {
          this.chainOpen = false;
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
   * One pull from a running chain. Why a `.then` chain instead of `step()`:
   * this is the per-event path, and an async function costs a second promise
   * and more promise-job turns per event. Only native async generators take it
   * (their `next()` always returns a native promise and never throws); every
   * other case, and every event that does not settle the pull, goes through `step()`.
   */
  private pull(): Promise<IteratorResult<TEvent, void>> {
    const status = this.status;
    const signal = this.signal;
    if (status === RUNNING && this.native && !this.hasQueued && (signal === undefined || !signal.aborted)) {
      return (this.inner as LayerGenerator).next().then(this.onPulled, this.onPullFailed);
    }
    if (status === RELEASED || status === DONE) {
      // The pull after the final event (or after the end): nothing can run any more.
      this.status = DONE;
      this.outstanding--;
      return Promise.resolve(END);
    }
    return this.step();
  }

  /**
   * Takes one result pulled from the outermost layer: the event to deliver,
   * the settling promise when the chain ended, or undefined when the event is
   * held and the next one must be pulled first.
   */
  private accept(pulled: IteratorResult<unknown, void>): IteratorResult<TEvent, void> | Promise<IteratorResult<TEvent, void>> | undefined {
    this.throwIfAborted();
    if (pulled.done === true) return this.complete();
    const event = pulled.value;
    if (event === undefined) throw messages.invalidEvent(this.stageName);
    this.last = event;
    if (!this.hold) return pulled as IteratorResult<TEvent, void>;
    const guard = this.guard;
    if (guard !== undefined && !guard(event)) {
      if (!this.hasHeld) return pulled as IteratorResult<TEvent, void>;
      // The held candidate was not last after all: release it, then this event.
      const released = this.held;
      this.held = undefined;
      this.hasHeld = false;
      this.queued = event;
      this.hasQueued = true;
      return { value: released as TEvent, done: false };
    }
    if (this.hasHeld) {
      const released = this.held;
      this.held = event;
      return { value: released as TEvent, done: false };
    }
    this.held = event;
    this.hasHeld = true;
    return undefined;
  }

  /** Input phase, context schema, state snapshot and the outermost layer. */
  private async start(): Promise<void> {
    this.status = RUNNING;
    const chain = this.#chain;
    const signal = this.signal;
    this.throwIfAborted();
    if (chain.instrumentations.length > 0) this.observation = InvokeObservation.start(chain, this.context, signal);
    let context = this.context;
    const input = chain.input;
    for (let position = 0; position < input.length; position++) {
      const entry = input[position] as ResolvedEntry;
      const info = this.observation === undefined ? undefined : this.observation.handlerStart('input', entry, position);
      try {
        let produced = (entry.handler as ErasedInput)(context);
        if (isThenable(produced)) produced = await produced;
        if (produced === undefined || produced === null) throw messages.inputContract(this.culprit('input', entry.name), produced);
        context = produced;
      } catch (error) {
        if (info !== undefined) (this.observation as InvokeObservation).handlerFailed(info, error);
        throw error;
      }
      if (info !== undefined) (this.observation as InvokeObservation).handlerEnd(info);
      this.throwIfAborted();
    }
    const schema = chain.stage.contextSchema as Schema<unknown> | undefined;
    if (schema !== undefined) context = await parseWithSchema(schema, context, (issues) => messages.schemaFailed(this.stageName, 'context', issues));
    if (this.options.state !== undefined) this.isolation = new StateIsolation(this.options.state, this.stageName);
    this.inner = this.enter(0, context, signal ?? neverSignal(), undefined);
    this.native = this.inner.next === nativeNext;
    this.chainOpen = true;
  }

  /** Creates layer `index` of the onion (the terminal when past the last Wrap handler). */
  private enter(index: number, context: unknown, signal: AbortSignal, parent: LayerInfo | undefined): LayerGenerator {
    const wrap = this.#chain.wrap;
    // Created before the handler runs, so that the layers it enters can name it as their parent.
    const observation = this.observation;
    const info = observation === undefined ? undefined : observation.layerInfo(index, context, parent);
    let generator: LayerGenerator;
    if (index === wrap.length) {
      generator = this.enterTerminal(context, signal);
    } else {
      const entry = wrap[index] as ResolvedEntry;
      const activation = { calls: 0 };
      const next = this.nextFor(index, context, signal, entry, activation, info);
      const produced = (entry.handler as ErasedWrap)(context, next, { stage: this.#chain.stage, signal, handler: entry.name });
      generator = asGenerator(produced, this.stageName, 'wrap', entry.name);
      if (entry.next === 'once') generator = requireACall(generator, activation, () => this.culprit('wrap', entry.name));
    }
    if (info !== undefined) generator = (observation as InvokeObservation).wrapLayer(info, generator);
    return generator;
  }

  /** The `next` a Wrap handler activation receives: each call enters a fresh inner chain. */
  private nextFor(index: number, context: unknown, signal: AbortSignal, entry: ResolvedEntry, activation: { calls: number }, info: LayerInfo | undefined): Next<unknown, unknown> {
    return (nextContext?: unknown, options?: NextOptions): LayerGenerator => {
      if (this.chainSettled) throw messages.nextAfterSettle(this.culprit('wrap', entry.name));
      activation.calls++;
      if (entry.next !== 'many' && activation.calls > 1) {
        throw messages.nextPolicy(this.culprit('wrap', entry.name), entry.next, activation.calls);
      }
      let innerSignal = signal;
      let link: Link | undefined;
      if (options !== undefined) {
        if (options === null || typeof options !== 'object') throw messages.invalidNextOptions(this.culprit('wrap', entry.name), `options that are ${describeValue(options)}, not an object`);
        const given = (options as NextOptions).signal as unknown;
        if (given !== undefined) {
          if (!isAbortSignal(given)) throw messages.invalidNextOptions(this.culprit('wrap', entry.name), `options.signal set to ${describeValue(given)}, not an AbortSignal`);
          const narrowing = narrowSignal(signal, given);
          innerSignal = narrowing.signal;
          link = narrowing.link;
        }
      }
      if (innerSignal.aborted) throw messages.aborted(this.stageName, innerSignal.reason);
      let generator: LayerGenerator;
      try {
        generator = this.enter(index + 1, nextContext === undefined ? context : nextContext, innerSignal, info);
      } catch (error) {
        link?.release();
        throw error;
      }
      if (this.started.length < HELD_CHAINS) {
        this.started.push(generator);
        if (link !== undefined) (this.links ??= []).push(link);
        return generator;
      }
      const chain = new ReleasingChain(generator, (this.owner ??= { forget: (ended) => void this.open?.delete(ended) }), link);
      (this.open ??= new Set()).add(chain);
      return chain;
    };
  }

  private enterTerminal(context: unknown, signal: AbortSignal): LayerGenerator {
    const isolation = this.isolation;
    if (isolation === undefined) {
      return asGenerator(this.terminal(context, { stage: this.#chain.stage, signal, state: undefined }), this.stageName, 'terminal', 'terminal');
    }
    const draft = isolation.draft();
    const events = asGenerator(this.terminal(context, { stage: this.#chain.stage, signal, state: draft }), this.stageName, 'terminal', 'terminal');
    if (this.#chain.wrap.length > 0) return new StateRecorder(events, isolation, draft);
    // The terminal is the outermost layer: the invoke sees its end itself (see complete()).
    this.outermostDraft = draft;
    return events;
  }

  /** The chain finished: Output phase, result schema, state writeback, final event. */
  private async complete(): Promise<IteratorResult<TEvent, void>> {
    this.chainOpen = false;
    if (this.outermostDraft !== undefined) (this.isolation as StateIsolation<unknown>).complete(this.outermostDraft as never);
    // No `await` when nothing was started: it would cost promise-job turns on every invoke.
    if (this.started.length > 0) await this.closeStarted();
    else this.chainSettled = true;
    // Events are never undefined (see `accept`), so an undefined `last` means no event came.
    if (this.last === undefined) throw this.noResult(false);
    if (!this.hold) {
      if (this.guard !== undefined && !this.guard(this.last)) throw this.noResult(true);
      this.settle(SUCCESS, this.last);
      this.status = DONE;
      return END;
    }
    if (!this.hasHeld) throw this.noResult(true);
    let value = this.held;
    this.held = undefined;
    this.hasHeld = false;
    const output = this.#chain.output;
    if (output.length > 0) {
      // Written out here rather than in a function of its own: another async call would cost promise-job turns on every invoke.
      // The result the Output handlers receive is taken over (deep-frozen in place, MW-038), so a handler that
      // mutates it fails at once instead of changing a value another one holds.
      let result = new MiddlewareResult<unknown>(value);
      // The first-registered Output handler is outermost, so it transforms last.
      for (let position = output.length - 1; position >= 0; position--) {
        const entry = output[position] as ResolvedEntry;
        const info = this.observation === undefined ? undefined : this.observation.handlerStart('output', entry, position);
        try {
          // A result of another installed copy of the library may hold a value its constructor did not freeze.
          takeOver(result.value);
          let produced = (entry.handler as ErasedOutput)(result);
          if (isThenable(produced)) produced = await produced;
          if (!MiddlewareResult.isInstance(produced)) throw messages.outputContract(this.culprit('output', entry.name), produced);
          result = produced;
        } catch (error) {
          if (info !== undefined) (this.observation as InvokeObservation).handlerFailed(info, error);
          throw error;
        }
        if (info !== undefined) (this.observation as InvokeObservation).handlerEnd(info);
        this.throwIfAborted();
      }
      value = result.value;
    }
    const schema = this.#chain.stage.resultSchema as Schema<unknown> | undefined;
    if (schema !== undefined) value = await parseWithSchema(schema, value, (issues) => messages.schemaFailed(this.stageName, 'result', issues));
    this.throwIfAborted();
    this.isolation?.writeBack();
    this.settle(SUCCESS, value);
    this.status = RELEASED;
    return { value: value as TEvent, done: false };
  }

  /** Ends the invoke after an error: closes what is open and decides which error the consumer sees. */
  private async fail(error: unknown): Promise<unknown> {
    if (this.status === DONE) return error;
    this.status = DONE;
    // As in nested generators, an error thrown while unwinding replaces the one being unwound.
    const failure = await this.closeAll();
    let outcome = failure === undefined ? error : failure.error;
    const signal = this.signal;
    if (signal !== undefined && signal.aborted && !(MiddlewareError.isInstance(outcome) && outcome.code === 'ERR_ABORTED' && outcome.cause === signal.reason)) {
      // Abort wins over whatever the layers made of it, even if a handler swallowed it
      // or a narrowed signal's abort (with another reason) reached the consumer first.
      outcome = messages.aborted(this.stageName, signal.reason);
    }
    this.settle(FAILURE, outcome);
    return outcome;
  }

  private async close(rethrow: boolean, error: unknown): Promise<IteratorResult<TEvent, void>> {
    try {
      const wasRunning = this.status === RUNNING;
      this.status = DONE;
      if (wasRunning) {
        const failure = await this.closeAll();
        this.settle(CLOSED, undefined);
        if (failure !== undefined) throw failure.error;
      }
      if (rethrow) throw error;
      return END;
    } finally {
      this.outstanding--;
    }
  }

  /**
   * Closes the outermost layer if it is open, then the inner chains left open.
   * The inner chains are closed even when the outermost layer's closing throws;
   * the last error thrown while closing is returned, as in nested finallys.
   */
  private async closeAll(): Promise<{ error: unknown } | undefined> {
    let failure: { error: unknown } | undefined;
    try {
      if (this.chainOpen) {
        this.chainOpen = false;
        await (this.inner as LayerGenerator).return(undefined);
      }
    } catch (closeError) {
      failure = { error: closeError };
    }
    try {
      await this.closeStarted();
    } catch (closeError) {
      failure = { error: closeError };
    }
    return failure;
  }

  /**
   * Closes inner chains that handlers started and left open, most recent
   * first: the later ones still open, then the first ones (all of them; closing
   * one that ended changes nothing).
   */
  private async closeStarted(): Promise<void> {
    this.chainSettled = true;
    const started = this.started;
    if (started.length === 0) return;
    this.started = [];
    // Every chain is closed even when one's `finally` throws; the last such error wins, as in nested finallys.
    let failure: { error: unknown } | undefined;
    const open = this.open;
    if (open !== undefined) {
      this.open = undefined;
      const later = [...open];
      for (let index = later.length - 1; index >= 0; index--) {
        try {
          await (later[index] as ReleasingChain).return(undefined);
        } catch (closeError) {
          failure = { error: closeError };
        }
      }
    }
    for (let index = started.length - 1; index >= 0; index--) {
      try {
        await (started[index] as LayerGenerator).return(undefined);
      } catch (closeError) {
        failure = { error: closeError };
      }
    }
    if (failure !== undefined) throw failure.error;
  }

  /** Releases the links of narrowed signals and reports the outcome (built only when observed); runs once. */
  private settle(status: typeof SUCCESS | typeof FAILURE | typeof CLOSED, value: unknown): void {
    this.chainSettled = true;
    const links = this.links;
    if (links !== undefined) {
      this.links = undefined;
      for (const link of links) link.release();
    }
    const observation = this.observation;
    if (observation !== undefined) {
      this.observation = undefined;
      let outcome: InvokeOutcome = CLOSED_OUTCOME;
      if (status === SUCCESS) outcome = Object.freeze({ status: 'success', result: value });
      else if (status === FAILURE) outcome = Object.freeze({ status: 'error', error: value });
      observation.end(outcome);
    }
  }

  /** Fails with `ERR_ABORTED` when the invoke's own signal has aborted (one of the check points of MW-023). */
  private throwIfAborted(): void {
    const signal = this.signal;
    if (signal !== undefined && signal.aborted) throw messages.aborted(this.stageName, signal.reason);
  }

  /** `ERR_NO_RESULT`, naming the outermost layer, where the missing result surfaced. */
  private noResult(eventCame: boolean): MiddlewareError {
    return messages.noResult(this.stageName, eventCame ? { present: true, value: this.last } : { present: false }, this.#chain.wrap[0]?.name);
  }

  private culprit(phase: Culprit['phase'], handler: string): Culprit {
    return { stage: this.stageName, phase, handler };
  }
}
