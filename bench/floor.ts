/**
 * The floors of the figures: the cheapest shells around a chain that an
 * invoke must at least be, measured against the same baseline.
 *
 * - The minimal shell only passes the outermost layer's results through a
 *   `.then` callback, with none of the invoke's checks. Why measure it: an
 *   invoke must look at every event before the consumer does (abort,
 *   `undefined`, the end of the chain), so it adds at least one promise
 *   reaction per event. How much that reaction costs relative to the chain
 *   depends on the engine, not on this library; this floor shows what part
 *   of a ratio no implementation of the contract can remove.
 * - The checked shell adds what the contract asks of every event in the
 *   figures' setting (no signal, no Output handler): calls queued as a native
 *   generator queues them, an `undefined` event refused, the last event kept
 *   as the result, an end without one refused. It is the cheapest
 *   implementation of those checks we know how to write, so it shows what
 *   they cost and how far over it the invoke's own bookkeeping is.
 */

import { createDraft, finishDraft, isDraftable, type Draft } from 'immer';

const END: IteratorReturnResult<void> = Object.freeze({ value: undefined, done: true });

/**
 * A minimal async iterator over `inner`: one `.then` per event, no checks.
 * Given `held`, the inner chains a hand-nested chain entered, it closes them
 * when the chain ends, before answering that pull, as MW-016 asks of an
 * invoke (see {@link closeHeld}).
 */
export class MinimalShell<TEvent> implements AsyncIterator<TEvent, void, undefined> {
  /** A live instance keeps the shell's hidden class through full collections, as the invoke keeps its own (`gc_pressure`). */
  // eslint-disable-next-line no-unused-private-class-members -- never read: being alive is its whole job
  static readonly #keeper: unknown = new MinimalShell((async function* nothing() {})(), undefined);

  private readonly onPulled: (pulled: IteratorResult<TEvent, void>) => IteratorResult<TEvent, void> | Promise<IteratorResult<TEvent, void>>;

  constructor(
    private readonly inner: AsyncIterator<TEvent, void, undefined>,
    held: readonly AsyncIterable<unknown>[] | undefined,
  ) {
    this.onPulled =
      held === undefined
        ? (pulled) => (pulled.done === true ? END : pulled)
        : (pulled) => (pulled.done === true ? closeHeld(held) : pulled);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Pulls the inner iterator's next result. */
  next(): Promise<IteratorResult<TEvent, void>> {
    return this.inner.next().then(this.onPulled);
  }
}

/** A shell around the events of a chain; `held`, when given, are the inner chains it closes at the end. */
export type Shell = <TEvent>(events: AsyncIterable<TEvent>, held?: readonly AsyncIterable<unknown>[]) => AsyncIterable<TEvent>;

/** Wraps an async iterable in a {@link MinimalShell}, which closes `held` at the end when given. */
export const minimalShell: Shell = (events, held) =>
  new MinimalShell(events[Symbol.asyncIterator]() as AsyncIterator<never, void, undefined>, held);

/**
 * The minimal shell with the checks an invoke makes of every event when it has no signal and no Output handler
 * (see the file's comment). Its work is in methods and its callbacks only call them, as the invoke's are (which
 * keeps their optimised code through full collections: `gc_pressure`).
 */
export class CheckedShell<TEvent> implements AsyncIterator<TEvent, void, undefined> {
  // eslint-disable-next-line no-unused-private-class-members -- never read: being alive is its whole job (see MinimalShell)
  static readonly #keeper: unknown = new CheckedShell((async function* nothing() {})(), undefined);

  /** Calls not answered yet: a call made while one is pending waits for its answer. */
  private outstanding = 0;
  private current: Promise<IteratorResult<TEvent, void>> | undefined = undefined;
  /** The result so far: the last event. */
  private last: TEvent | undefined = undefined;
  // Assigned in the constructor, as MinimalShell's callback is: a field initialised with an arrow function costs a
  // `defineProperty` of its name under the benchmark's TypeScript loader (see `library.ts`).
  private readonly onPulled: (pulled: IteratorResult<TEvent, void>) => IteratorResult<TEvent, void> | Promise<IteratorResult<TEvent, void>>;
  private readonly onFailed: (error: unknown) => never;
  /** Made when a call first waits for another, which a consumer that awaits each call never makes. */
  private pullLater: (() => Promise<IteratorResult<TEvent, void>>) | undefined = undefined;

  constructor(
    private readonly inner: AsyncIterator<TEvent, void, undefined>,
    private readonly held: readonly AsyncIterable<unknown>[] | undefined,
  ) {
    this.onPulled = (pulled) => this.pulled(pulled);
    this.onFailed = (error) => this.failed(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Pulls the next event once the call before it, if any, is answered. */
  next(): Promise<IteratorResult<TEvent, void>> {
    if (this.outstanding++ === 0) return (this.current = this.pull());
    this.pullLater ??= this.pull.bind(this);
    return (this.current = (this.current as Promise<IteratorResult<TEvent, void>>).then(this.pullLater, this.pullLater));
  }

  private pull(): Promise<IteratorResult<TEvent, void>> {
    return this.inner.next().then(this.onPulled, this.onFailed);
  }

  private pulled(pulled: IteratorResult<TEvent, void>): IteratorResult<TEvent, void> | Promise<IteratorResult<TEvent, void>> {
    if (pulled.done === true) return this.held === undefined ? this.end() : this.closeThenEnd(this.held);
    const event = pulled.value;
    if (event === undefined) this.failed(new Error('A layer yielded undefined.'));
    this.last = event;
    this.outstanding--;
    return pulled;
  }

  private end(): IteratorResult<TEvent, void> {
    if (this.last === undefined) this.failed(new Error('The chain ended without a result.'));
    this.outstanding--;
    return END;
  }

  private async closeThenEnd(held: readonly AsyncIterable<unknown>[]): Promise<IteratorResult<TEvent, void>> {
    await closeHeld(held);
    return this.end();
  }

  private failed(error: unknown): never {
    this.outstanding--;
    throw error;
  }
}

/** Wraps an async iterable in a {@link CheckedShell}, which closes `held` at the end when given. */
export const checkedShell: Shell = (events, held) =>
  new CheckedShell(events[Symbol.asyncIterator]() as AsyncIterator<never, void, undefined>, held);

/** What the checked floor is, in words. */
export const CHECKED_FLOOR =
  'the floor with the checks the contract asks of every event without a signal: calls queued, undefined events refused, the last event kept as the result';

/** What the floor of a figure whose invoke enters inner chains is: the minimal shell, which closes them at the end. */
export const CLOSING_FLOOR =
  'a minimal shell (one .then per event, no checks) around the baseline, which closes the inner chains with return(), most recent first, before answering the pull that met the end (MW-016)';

/**
 * Closes the inner chains a hand-nested chain entered, most recent first, one
 * after the other, then answers the end: what MW-016 asks of every invoke at
 * settle, in one async step. Since MW-013 hands each handler the inner
 * layer's own generator, an implementation cannot see which of them ended,
 * so it closes them all, and a `return()` of a native async generator costs
 * two promise jobs even when it has ended.
 */
async function closeHeld(held: readonly AsyncIterable<unknown>[]): Promise<IteratorReturnResult<void>> {
  for (let index = held.length - 1; index >= 0; index--) await (held[index] as AsyncGenerator<unknown, void>).return(undefined);
  return END;
}

/**
 * A signal the benchmark makes and aborts itself, with a flag set just before it aborts: what MW-023 lets an
 * invoke read on every event instead of `signal.aborted` for a signal the library made (an agent run's).
 */
export class AbortFlag {
  aborted = false;
  private readonly controller = new AbortController();
  readonly signal: AbortSignal = this.controller.signal;

  /** Aborts the signal with `reason`, the flag first. */
  abort(reason?: unknown): void {
    this.aborted = true;
    this.controller.abort(reason);
  }
}

/** What {@link GuardedShell} checks: the run's abort flag, the stage's `isResult` guard, and whether the invoke holds its result. */
export interface InvokeChecks {
  /** The invoke's signal, read through its flag (MW-023). */
  readonly flag: AbortFlag;
  /** The stage's `isResult` guard (MW-006, MW-007). */
  readonly guard: (event: unknown) => boolean;
  /** Hold mode (MW-003): the invoke has an Output handler, a result schema or a state binding. */
  readonly hold: boolean;
}

/**
 * The checked shell of an invoke that has a signal and whose stage has an `isResult` guard, as the reference agent's
 * invokes are: besides what {@link CheckedShell} checks, the abort flag before each pull from the chain and after
 * each result pulled (MW-023), and the result rule of its mode (MW-003, MW-006, MW-007). In pass mode the guard sees
 * only the last event, at the end; in hold mode it sees every event: an event it refuses goes out at once when
 * nothing is held, a candidate is held until the next event or the end shows whether it is the last, and at the
 * end the candidate still held goes out last. A held candidate released by an event the guard refuses goes out
 * first, that event at the next pull. The cheapest implementation of exactly those checks we know how to write,
 * built as {@link CheckedShell} is.
 */
export class GuardedShell<TEvent> implements AsyncIterator<TEvent, void, undefined> {
  // eslint-disable-next-line no-unused-private-class-members -- never read: being alive is its whole job (see MinimalShell)
  static readonly #keeper: unknown = new GuardedShell((async function* nothing() {})(), undefined, {
    flag: new AbortFlag(),
    guard: () => true,
    hold: true,
  });

  private outstanding = 0;
  private current: Promise<IteratorResult<TEvent, void>> | undefined = undefined;
  private last: TEvent | undefined = undefined;
  /** Hold mode: the candidate waiting for the next event or the end. */
  private held: TEvent | undefined = undefined;
  /** Hold mode: an event that released the held candidate, delivered at the next pull. */
  private queued: TEvent | undefined = undefined;
  /** Hold mode: the result went out; every pull ends. */
  private released = false;
  private readonly flag: AbortFlag;
  private readonly guard: (event: unknown) => boolean;
  private readonly hold: boolean;
  private readonly onPulled: (pulled: IteratorResult<TEvent, void>) => IteratorResult<TEvent, void> | Promise<IteratorResult<TEvent, void>>;
  private readonly onFailed: (error: unknown) => never;
  private pullLater: (() => Promise<IteratorResult<TEvent, void>>) | undefined = undefined;

  constructor(
    private readonly inner: AsyncIterator<TEvent, void, undefined>,
    private readonly chains: readonly AsyncIterable<unknown>[] | undefined,
    checks: InvokeChecks,
  ) {
    this.flag = checks.flag;
    this.guard = checks.guard;
    this.hold = checks.hold;
    this.onPulled = (pulled) => this.pulled(pulled);
    this.onFailed = (error) => this.failed(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Pulls the next event once the call before it, if any, is answered. */
  next(): Promise<IteratorResult<TEvent, void>> {
    if (this.outstanding++ === 0) return (this.current = this.pull());
    this.pullLater ??= this.pull.bind(this);
    return (this.current = (this.current as Promise<IteratorResult<TEvent, void>>).then(this.pullLater, this.pullLater));
  }

  private pull(): Promise<IteratorResult<TEvent, void>> {
    const queued = this.queued;
    if (queued !== undefined) {
      this.queued = undefined;
      this.outstanding--;
      return Promise.resolve({ value: queued, done: false });
    }
    if (this.released) {
      this.outstanding--;
      return Promise.resolve(END);
    }
    // MW-023: before each pull, so an abort while the consumer was paused runs no more of the chain.
    if (this.flag.aborted) {
      this.outstanding--;
      return Promise.reject(this.abortError());
    }
    return this.inner.next().then(this.onPulled, this.onFailed);
  }

  private pulled(pulled: IteratorResult<TEvent, void>): IteratorResult<TEvent, void> | Promise<IteratorResult<TEvent, void>> {
    // MW-023: after each result pulled, before it is checked, held or delivered.
    if (this.flag.aborted) this.failed(this.abortError());
    if (pulled.done === true) return this.chains === undefined ? this.end() : this.closeThenEnd(this.chains);
    const event = pulled.value;
    if (event === undefined) this.failed(new Error('A layer yielded undefined.'));
    this.last = event;
    if (!this.hold) {
      this.outstanding--;
      return pulled;
    }
    const candidate = this.guard(event);
    const held = this.held;
    if (!candidate && held === undefined) {
      this.outstanding--;
      return pulled;
    }
    if (candidate) {
      this.held = event;
      // The first candidate: the next event decides, pulled within the same call (checked as every pull is).
      if (held === undefined) return this.pull();
    } else {
      this.held = undefined;
      this.queued = event;
    }
    this.outstanding--;
    return { value: held as TEvent, done: false };
  }

  /** The end of the chain: in pass mode the last event must pass the guard; in hold mode the held candidate goes out. */
  private end(): IteratorResult<TEvent, void> {
    if (!this.hold) {
      const last = this.last;
      if (last === undefined || !this.guard(last)) this.failed(new Error('The chain ended without a result.'));
      this.outstanding--;
      return END;
    }
    const held = this.held;
    if (held === undefined) this.failed(new Error('The chain ended without a result.'));
    this.held = undefined;
    this.released = true;
    this.outstanding--;
    return { value: held, done: false };
  }

  private async closeThenEnd(chains: readonly AsyncIterable<unknown>[]): Promise<IteratorResult<TEvent, void>> {
    await closeHeld(chains);
    return this.end();
  }

  private abortError(): Error {
    return new Error('The invoke was aborted.', { cause: this.flag.signal.reason });
  }

  private failed(error: unknown): never {
    this.outstanding--;
    throw error;
  }
}

/** A shell doing the checks `checks` asks for (see {@link GuardedShell}); closes `held` at the end when given. */
export function guardedShell(checks: InvokeChecks): Shell {
  return (events, held) => new GuardedShell(events[Symbol.asyncIterator]() as AsyncIterator<never, void, undefined>, held, checks);
}

/**
 * The work the registry's rules put on each invoke of an agent run besides its events, for `agent_turn`'s floor
 * with the checks, each in the cheapest form we know how to write. Every piece names the rule that asks for it.
 */

/** Whether `value` is a thenable: MW-010 and MW-011 await a handler's answer only then. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function'
  );
}

/** The `run` argument of an Input, Output or Wrap handler (MW-010 – MW-012): a new object for each call. */
export interface HandlerRun {
  readonly stage: unknown;
  readonly signal: AbortSignal;
  readonly handler: string;
}

/**
 * One Input handler call as MW-010 asks: called with a new `run`, a thenable answer awaited, `undefined` or `null`
 * refused; then the abort check after each Input handler (MW-023).
 */
export function callInput<TContext>(
  handler: (context: TContext, run: HandlerRun) => TContext | PromiseLike<TContext>,
  context: TContext,
  run: HandlerRun,
  flag: AbortFlag,
): TContext | Promise<TContext> {
  const answer = handler(context, run);
  if (isThenable(answer)) return Promise.resolve(answer).then((awaited) => checkedInput(awaited, flag));
  return checkedInput(answer, flag);
}

function checkedInput<TContext>(answer: TContext, flag: AbortFlag): TContext {
  if (answer === undefined || answer === null) throw new Error('An Input handler returned no context.');
  if (flag.aborted) throw new Error('The invoke was aborted.', { cause: flag.signal.reason });
  return answer;
}

/**
 * One Output handler call as MW-011 asks: called with the result and a new `run`, a thenable answer awaited, an
 * answer that `isResult` (the `MiddlewareResult` check) refuses refused; then the abort check after each Output
 * handler (MW-023). The result handed in is the caller's `MiddlewareResult`, which froze its value (MW-038).
 */
export function callOutput<TResult>(
  handler: (result: TResult, run: HandlerRun) => TResult | PromiseLike<TResult>,
  result: TResult,
  run: HandlerRun,
  isResult: (value: unknown) => boolean,
  flag: AbortFlag,
): TResult | Promise<TResult> {
  const answer = handler(result, run);
  if (isThenable(answer)) return Promise.resolve(answer).then((awaited) => checkedOutput(awaited, isResult, flag));
  return checkedOutput(answer, isResult, flag);
}

function checkedOutput<TResult>(answer: TResult, isResult: (value: unknown) => boolean, flag: AbortFlag): TResult {
  if (!isResult(answer)) throw new Error('An Output handler must return a MiddlewareResult.');
  if (flag.aborted) throw new Error('The invoke was aborted.', { cause: flag.signal.reason });
  return answer;
}

/**
 * A layer entered (a Wrap handler's activation or a terminal call), checked as MW-012 asks: an async generator
 * (`Symbol.asyncIterator`, `next` and `return` methods) is used as it is; the floor's layers are all async
 * generators, so anything else is refused rather than adapted.
 */
export function enteredLayer<TLayer>(layer: TLayer): TLayer {
  const generator = layer as { next?: unknown; return?: unknown; [Symbol.asyncIterator]?: unknown } | null | undefined;
  if (
    typeof generator?.next !== 'function' ||
    typeof generator.return !== 'function' ||
    typeof generator[Symbol.asyncIterator] !== 'function'
  )
    throw new Error('A layer must return an async generator.');
  return layer;
}

/** What a Wrap handler's `next()` looks at before it enters the inner chain: whether its invoke has settled. */
export interface Settling {
  settled: boolean;
}

/**
 * The checks of a Wrap handler's `next()` call without options under a handler without a `next` policy (MW-013):
 * the invoke has not settled (MW-017) and the inner chain's signal, the invoke's own, is not aborted (MW-025).
 */
export function checkNext(invoke: Settling, flag: AbortFlag): void {
  if (invoke.settled) throw new Error('next() was called after the invoke settled.');
  if (flag.aborted) throw new Error('The invoke was aborted.', { cause: flag.signal.reason });
}

/** A state binding (MW-027). */
export interface Binding<TState> {
  get(): TState;
  set(state: TState): void;
}

/**
 * The options of an invoke, checked as MW-035 asks before anything runs: the signal an AbortSignal (MW-013's test:
 * a boolean `aborted`, `addEventListener` and `removeEventListener` methods), the state binding an object with `get`
 * and `set` functions.
 */
export function checkOptions(signal: AbortSignal, state?: Binding<unknown>): void {
  if (
    typeof signal.aborted !== 'boolean' ||
    typeof signal.addEventListener !== 'function' ||
    typeof signal.removeEventListener !== 'function'
  )
    throw new Error('options.signal must be an AbortSignal.');
  if (state !== undefined && (typeof state.get !== 'function' || typeof state.set !== 'function'))
    throw new Error('options.state must have get() and set().');
}

/**
 * An invoke's state binding as MW-027 – MW-029 ask, for states that are frozen already (the agent's model state
 * and conversation state, which the library produced, MW-027: one check whatever their size): `get()` called once,
 * the value refused unless immer can draft it; a fresh immer draft for each terminal call (MW-028), its state
 * recorded when the call completes; `set()` called once with the last recorded state when the invoke succeeds
 * (MW-029), never otherwise.
 */
export class HeldState<TState> {
  private readonly snapshot: TState;
  private recorded: TState | undefined = undefined;
  private completed = false;

  constructor(private readonly binding: Binding<TState>) {
    const value = binding.get();
    if (!isDraftable(value)) throw new Error('The state cannot be drafted.');
    // The floor's states are frozen; an unfrozen one would need MW-027's deep freeze and cycle check, which no run here asks for.
    if (!Object.isFrozen(value)) throw new Error('The floor takes frozen states only.');
    this.snapshot = value;
  }

  /** A fresh draft of the snapshot for one terminal call (MW-028). */
  draft(): Draft<TState> {
    return createDraft(this.snapshot as never);
  }

  /** Records the state a terminal call produced when it completed (MW-028). */
  complete(draft: Draft<TState>): void {
    this.recorded = finishDraft(draft) as TState;
    this.completed = true;
  }

  /** The writeback of an invoke that succeeded (MW-029): `set()` with the last recorded state, when a call completed. */
  succeeded(): void {
    if (this.completed) this.binding.set(this.recorded as TState);
  }
}

/** An instrumentation as MW-052 calls it. */
export interface InvokeObserving {
  invoke(info: { readonly stage: unknown; readonly context: unknown; readonly signal: AbortSignal | undefined }): unknown;
}

/**
 * The instrumentation's call at an invoke's start (MW-052): `invoke()` with a frozen info object of its own (MW-037)
 * holding the stage, the caller's context and the signal; what it answers is checked, and the floor's
 * instrumentations answer no observer, so an observer is refused rather than run.
 */
export function instrumentInvoke(instrumentation: InvokeObserving, stage: unknown, context: unknown, signal: AbortSignal): void {
  const observer = instrumentation.invoke(Object.freeze({ stage, context, signal }));
  if (observer !== undefined) throw new Error('The floor runs instrumentations that observe nothing.');
}
