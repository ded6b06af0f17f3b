/**
 * The once-per-invoke side of the invoke's iterator: its states and fields,
 * the first pull that starts the invoke, and the ways it ends (the result
 * delivered, a failure, a stop at the consumer's request). The per-event
 * path (`invocation.ts`) extends it; nothing here runs per event.
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
 * means none came); `native`: `inner` is a native async generator or a
 * hand-written iterator that promises as much (`promisesNatively`), whose
 * pulls take the `.then` path. The mode is fixed per invoke (MW-003): in pass
 * mode every event goes out as it comes; in hold mode (Output handlers, a
 * result schema or a state binding) a result candidate waits until the next
 * event or the end shows whether it is the last (`accept`).
 *
 * @packageDocumentation
 */
import * as messages from './messages';
import type { MiddlewareError } from './errors';
import type { ResolvedChain } from './chain';
import type { InvokeOptions, Terminal } from './types';
import { OwnedAbortController } from './abort-flag';
import { closeStarted, failInvoke, settle, stopInvoke, SUCCESS, type ClosingFailure } from './closing';
import type { LayerGenerator } from './layer';
import { promisesNatively, pullsThrough } from './native-layers';
import { finish, finishLater, LATER, start, type Later } from './phases';
import { QueuedIterator, type Answer } from './queued-iterator';
import { InvokeRun } from './run';

export const IDLE = 0;
export const RUNNING = 1;
export const RELEASED = 2;
export const DONE = 3;

/** The answer of every pull once the invoke has ended. */
// Stryker disable next-line ObjectLiteral,BooleanLiteral: built once when the module loads, before a mutant can be switched on at run time (see test/mutation/README.md).
export const END: IteratorReturnResult<void> = Object.freeze({ value: undefined, done: true });

/** One invoke's iterator, but for its per-event path. */
export abstract class InvocationLifecycle<TEvent> extends QueuedIterator<TEvent> {
  protected status = IDLE;
  protected inner: LayerGenerator | undefined;
  // Stryker disable next-line BooleanLiteral: setInner() sets it before a pull reads it.
  protected native = false;
  /** `inner` is an iterator of ours, pulled with `nextThen` (`queued-iterator.ts`). */
  // Stryker disable next-line BooleanLiteral: setInner() sets it before a pull reads it.
  protected ours = false;
  protected last: unknown;
  protected held: unknown;
  protected queued: unknown;
  protected readonly hold: boolean;
  protected readonly guard: ((event: unknown) => boolean) | undefined;
  protected readonly signal: AbortSignal | undefined;
  /** The signal's controller when the library made it: its flag is read instead of the signal (`abort-flag.ts`). */
  private readonly flag: OwnedAbortController | undefined;
  /** The once-per-invoke side; a private field of the language, so the generator users get cannot reach its chain (MW-037). */
  readonly #run: InvokeRun;

  /** Prepares the invoke; nothing runs until the first `next()`. */
  constructor(chain: ResolvedChain, context: unknown, terminal: Terminal<unknown, unknown>, options: InvokeOptions) {
    super();
    this.#run = new InvokeRun(chain, context, terminal, options.state, options.signal);
    this.signal = options.signal;
    // Stryker disable next-line ConditionalExpression: of() answers undefined for undefined too; the check only skips the lookup.
    this.flag = options.signal === undefined ? undefined : OwnedAbortController.of(options.signal);
    this.guard = chain.stage.isResult;
    this.hold = chain.output.length > 0 || chain.stage.resultSchema !== undefined || options.state !== undefined;
  }

  /** The per-event path's slow pull (`invocation.ts`); `starting` is an asynchronous start. */
  protected abstract step(starting: Promise<LayerGenerator> | undefined): Promise<Answer<TEvent>>;

  /** The first pull: starts the invoke and, when that was synchronous, pulls at once. */
  protected begin(): Promise<Answer<TEvent>> {
    this.status = RUNNING;
    let started: LayerGenerator | Promise<LayerGenerator>;
    try {
      this.throwIfAborted();
      started = start(this.#run);
    } catch (error) {
      return this.failPull(error);
    }
    // Stryker disable next-line ConditionalExpression: step() awaits a generator given as it is; the check only keeps a synchronous start synchronous.
    if (started instanceof Promise) return this.step(started);
    this.setInner(started);
    return this.pull();
  }

  protected setInner(inner: LayerGenerator): void {
    this.inner = inner;
    // Stryker disable next-line ConditionalExpression: without the per-event shortcut every pull takes step(), which delivers the same.
    this.native = promisesNatively(inner);
    this.ours = pullsThrough(inner);
  }

  /** Ends the pull in progress with the invoke's failure. */
  protected readonly failPull = (error: unknown): Promise<never> => {
    const rethrow = this.rethrow();
    return this.fail(error).then(rethrow, rethrow);
  };

  /**
   * The chain completed: the inner chains left open are closed (MW-016), then the result goes out (`finish`).
   * Synchronous unless closing or the Output phase is not, so a pass-mode invoke ends in the pull's own callback.
   * A promise it returns answers the consumer's call itself: it counts the answer down and, should delivering fail,
   * fails the invoke (`failPull`), so that the pull hands it on as it is, with no reaction of its own.
   */
  protected complete(): Answer<TEvent> | Promise<Answer<TEvent>> {
    this.inner = undefined;
    const run = this.#run;
    run.state?.chainCompleted();
    const closing = closeStarted(run, InvocationLifecycle.afterClosing, this as InvocationLifecycle<unknown>);
    return closing === undefined ? this.deliver() : (closing as Promise<Answer<TEvent>>);
  }

  /**
   * What follows the closing of the inner chains, in the closing's own async step: a failure while closing fails
   * the invoke (MW-021), else the result goes out; either way the call is answered here (see `complete`). A static
   * function rather than a closure, so that an invoke allocates nothing for it.
   */
  private static readonly afterClosing = (
    invoke: InvocationLifecycle<unknown>,
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
    // Stryker disable next-line ConditionalExpression: true skips the count-down, which only decides whether a call waits for the answer before it (too high, calls wait for answers already given, with the same results); false counts down before release() has answered, which "waits while the asynchronous Output phase runs" (invocation.test.ts) catches.
    if (answer instanceof Promise) return answer;
    // Stryker disable next-line UpdateOperator: the count only decides whether a call waits for the answer before it; too high, calls wait for answers already given, with the same results.
    invoke.outstanding--;
    return answer;
  };

  /** The result check, then the end of a pass-mode invoke or the final event of a hold-mode one. */
  private deliver(): Answer<TEvent> | Promise<Answer<TEvent>> {
    const run = this.#run;
    const { last, hold, guard } = this;
    // Stryker disable next-line ObjectLiteral: a missing present reads as false.
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
    if (value === LATER) return this.release(finishLater(run));
    this.status = RELEASED;
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
    this.status = RELEASED;
    // Stryker disable next-line UpdateOperator: the count only decides whether a call waits for the answer before it; too high, calls wait for answers already given, with the same results.
    this.outstanding--;
    return { value: value as TEvent, done: false };
  }

  /** Ends the invoke after an error: closes what is open and decides which error the consumer sees. */
  protected fail(error: unknown): Promise<unknown> {
    return failInvoke(this.#run, this.end(), error);
  }

  /** Stops the invoke at the consumer's request (`return()`, `throw()`). */
  protected stop(rethrow: boolean, error: unknown): Promise<Answer<TEvent>> {
    return stopInvoke(this.#run, this.end(), rethrow, error).then(this.answered(), this.rethrow());
  }

  /** Marks the invoke DONE and hands over the outermost layer if it is open, for closing. */
  private end(): LayerGenerator | undefined {
    const inner = this.inner;
    this.status = DONE;
    this.inner = undefined;
    return inner;
  }

  /**
   * Whether the invoke's own signal has aborted. Why not always the signal's `aborted`: see `abort-flag.ts`; two
   * separate reads, so that the flag's stays monomorphic however many signals the other one sees.
   */
  protected signalAborted(): boolean {
    const signal = this.signal;
    // Without a signal, as cheap as the check was before flags: one field read.
    if (signal === undefined) return false;
    const flag = this.flag;
    return flag !== undefined ? flag.aborted : signal.aborted;
  }

  /** Fails with `ERR_ABORTED` when the invoke's own signal has aborted (one of the check points of MW-023). */
  protected throwIfAborted(): void {
    if (this.signalAborted()) throw messages.aborted(this.#run.stageName, (this.signal as AbortSignal).reason);
  }

  /** `ERR_INVALID_EVENT`: a layer yielded `undefined`. */
  protected invalidEvent(): MiddlewareError {
    return messages.invalidEvent(this.#run.stageName);
  }
}
