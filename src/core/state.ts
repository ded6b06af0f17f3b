/**
 * State isolation (MW-027 – MW-029), in one place: the invoke reads the
 * binding once into a frozen snapshot, gives each terminal call a fresh
 * draft of it, records the state of each terminal call that completes, and
 * writes back the last one only when the invoke succeeds.
 *
 * The invoke uses three calls of {@link StateIsolation}: `terminalCall` when
 * it enters the terminal (compose.ts), `chainCompleted` when the chain ends,
 * and `writeBack` when the invoke succeeds (phases.ts).
 *
 * @packageDocumentation
 */
import { createDraft, enableMapSet, finishDraft, isDraftable, type Draft } from 'immer';
import { stateCyclic, stateNotDraftable } from './messages';
import type { StateBinding } from './types';
import { deepFreezeOrFindCycle } from '../util/deep-freeze';
import { callSafely, pullFrom, type LayerGenerator } from './layer';

/** Whether immer's Map/Set plugin has been switched on (once per process, on first use). */
let mapSetEnabled = false;

/**
 * The method by which a terminal's iterator reports its own completion, so
 * that no {@link StateRecorder} needs to wrap it (one promise reaction less
 * on every event): given a callback, the iterator calls it once, when a pull
 * answers the end of the call, and never once the call was closed early or
 * failed. Internal: the agent's model terminal has it.
 */
export const reportCompletion: unique symbol = Symbol('reportCompletion');

/** A terminal's iterator that reports its completion (see {@link reportCompletion}). */
export interface CompletionReporting {
  [reportCompletion](callback: () => void): void;
}

/**
 * Model-state isolation for one invoke: a frozen snapshot read once, a fresh
 * draft per terminal call, and the state of the last terminal call that
 * completed, written back only when the invoke succeeds.
 *
 * Why drafts of a frozen snapshot rather than copies: immer shares every
 * untouched branch, so the cost per invoke follows what the terminal changes,
 * not the size of the state. Freezing is deep only the first time: the walk
 * stops at objects that are already frozen, and the states immer produces are
 * frozen already. The same walk rejects a reference cycle, which immer would
 * write back inconsistently (a change reached through one path but not the
 * other).
 */
export class StateIsolation<TState> {
  readonly #snapshot: TState;
  #produced: TState | undefined;
  #completed = false;
  /** The draft of a terminal that is the outermost layer (no Wrap handlers): no recorder wraps it, so `chainCompleted` records it. */
  #outermostDraft: Draft<TState> | undefined;
  readonly #binding: StateBinding<TState>;

  /**
   * Reads the binding once and takes the value over: deep-frozen in place
   * (parts already frozen are taken as they are).
   *
   * @throws MiddlewareError `ERR_INVALID_STATE` when the value is not draftable, or its unfrozen part holds a reference cycle.
   */
  constructor(binding: StateBinding<TState>, stageName: string) {
    this.#binding = binding;
    const value = binding.get();
    if (!mapSetEnabled) {
      // isDraftable() accepts Maps and Sets (anywhere in the state), but drafting them needs immer's plugin.
      enableMapSet();
      mapSetEnabled = true;
    }
    if (!isDraftable(value)) {
      throw stateNotDraftable(stageName, value);
    }
    const cycle = deepFreezeOrFindCycle(value);
    if (cycle !== undefined) {
      throw stateCyclic(stageName, cycle);
    }
    this.#snapshot = value;
  }

  /** A fresh draft of the snapshot for one terminal call. */
  draft(): Draft<TState> {
    return createDraft(this.#snapshot as never);
  }

  /** Records the state a terminal call produced when it completed. */
  complete(draft: Draft<TState>): void {
    this.#produced = finishDraft(draft) as TState;
    this.#completed = true;
  }

  /**
   * Runs one terminal call with a fresh draft (`call` starts it with the
   * draft) and returns its events, wrapped so that its state is recorded when
   * it completes. When the terminal is the outermost layer, the invoke sees
   * its end itself, so its events are not wrapped (see `chainCompleted`);
   * nor are they when they report their completion ({@link reportCompletion}).
   */
  terminalCall(call: (draft: Draft<TState>) => LayerGenerator, outermost: boolean): LayerGenerator {
    const draft = this.draft();
    const events = call(draft);
    if (!outermost) {
      if (!reportsCompletion(events)) return new StateRecorder(events, this as StateIsolation<unknown>, draft);
      events[reportCompletion](() => {
        this.complete(draft);
      });
      return events;
    }
    this.#outermostDraft = draft;
    return events;
  }

  /** The chain completed: records the state of a terminal that is the outermost layer. */
  chainCompleted(): void {
    if (this.#outermostDraft !== undefined) this.complete(this.#outermostDraft);
  }

  /** Writes the state of the last completed terminal call back, if any completed. */
  writeBack(): void {
    if (this.#completed) this.#binding.set(this.#produced as TState);
  }
}

/** Whether a terminal's iterator reports its completion itself. */
function reportsCompletion(events: LayerGenerator): events is LayerGenerator & CompletionReporting {
  return typeof (events as Partial<CompletionReporting>)[reportCompletion] === 'function';
}

/**
 * Records the draft's state when the terminal call completes (and only then:
 * not when it is closed early or throws).
 *
 * Why a hand-written iterator rather than an `async function*` around the
 * terminal: with a state binding this sits on every event of the model
 * stream, and one `.then` per event costs about half of a generator layer.
 * The terminal may be any async iterable (MW-012): its `next()` may return
 * plain results or throw synchronously, and it may have no `throw()`.
 */
export class StateRecorder implements LayerGenerator {
  private readonly record: (pulled: IteratorResult<unknown, void>) => IteratorResult<unknown, void>;
  /** Set by the first end or close: later pulls of a finished call record nothing again. */
  private settled = false;

  /** Wraps one terminal call's events; `draft` is the draft that call received. */
  constructor(
    private readonly events: LayerGenerator,
    isolation: StateIsolation<unknown>,
    draft: unknown,
  ) {
    this.record = (pulled) => {
      if (pulled.done === true && !this.settled) {
        this.settled = true;
        isolation.complete(draft);
      }
      return pulled;
    };
  }

  /** Pulls the next event; the end of the terminal call records its state. */
  next(): Promise<IteratorResult<unknown, void>> {
    return pullFrom(this.events).then(this.record);
  }

  /** Closes the terminal call; a closed call records nothing. */
  return(value?: void | PromiseLike<void>): Promise<IteratorResult<unknown, void>> {
    this.settled = true;
    return callSafely(this.events, 'return', value);
  }

  /**
   * Throws into the terminal call; if it still completes, its state is
   * recorded. A terminal without `throw()` is closed and the error passes on,
   * as `yield*` does with such an iterator.
   */
  throw(error: unknown): Promise<IteratorResult<unknown, void>> {
    if (typeof this.events.throw !== 'function') {
      return this.return().then(
        () => Promise.reject(error),
        () => Promise.reject(error),
      );
    }
    return callSafely(this.events, 'throw', error).then(this.record);
  }

  /** Supports `await using`, like a native generator. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  /** The recorder is its own iterator, so `yield*` and `for await` drive it directly. */
  [Symbol.asyncIterator](): this {
    return this;
  }
}
