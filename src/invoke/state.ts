import { createDraft, enableMapSet, finishDraft, isDraftable, type Draft } from 'immer';
import { stateCyclic, stateNotDraftable } from '../errors/messages';
import { takeOver } from '../util/take-over';
import type { StateBinding } from '../stage/types';

/** Whether immer's Map/Set plugin has been switched on (once per process, on first use). */
let mapSetEnabled = false;

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
  private readonly snapshot: TState;
  private produced: TState | undefined;
  private completed = false;

  /**
   * Reads the binding once and takes the value over: deep-frozen in place
   * (parts already frozen are taken as they are).
   *
   * @throws MiddlewareError `ERR_INVALID_STATE` when the value is not draftable, or its unfrozen part holds a reference cycle.
   */
  constructor(
    private readonly binding: StateBinding<TState>,
    stageName: string,
  ) {
    const value = binding.get();
    if (!mapSetEnabled) {
      // isDraftable() accepts Maps and Sets (anywhere in the state), but drafting them needs immer's plugin.
      enableMapSet();
      mapSetEnabled = true;
    }
    if (!isDraftable(value)) {
      throw stateNotDraftable(stageName, value);
    }
    const cycle = takeOver(value, true);
    if (cycle !== undefined) {
      throw stateCyclic(stageName, cycle);
    }
    this.snapshot = value;
  }

  /** A fresh draft of the snapshot for one terminal call. */
  draft(): Draft<TState> {
    return createDraft(this.snapshot as never) as Draft<TState>;
  }

  /** Records the state a terminal call produced when it completed. */
  complete(draft: Draft<TState>): void {
    this.produced = finishDraft(draft) as TState;
    this.completed = true;
  }

  /** Writes the state of the last completed terminal call back, if any completed. */
  writeBack(): void {
    if (this.completed) this.binding.set(this.produced as TState);
  }
}
