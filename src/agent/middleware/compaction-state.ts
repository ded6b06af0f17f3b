/**
 * What `compaction` keeps of a run (MW-179): its latest summary, whether
 * that was the fallback, and the counts its circuit breaker (MW-177) and
 * its guard against compacting again and again (MW-178) read, in the run's
 * invocation state, so a handler of any stage can read them and a resumed
 * run (in another process too) goes on from them.
 */
import { createStateKey } from '../values/state-key';
import type { StateCarrier, StateKey } from '../types/state-key';
import { isObject } from '../../util/is-object';
import { ownEntry } from '../../util/own-entry';

/** What `compaction` keeps of a run under {@link CompactionStateKey}. JSON, so a snapshot of a halted run carries it. */
export interface CompactionState {
  /** The summary text of the latest compaction, without its heading (a carried-forward part included). */
  readonly summary: string;
  /** True when that summary is the fallback, written without a model because the summary call failed or the breaker was open. */
  readonly fallback: boolean;
  /** The compactions of the run so far. */
  readonly compactions: number;
  /** Summary calls that failed in a row (0 after one that succeeded). */
  readonly failures: number;
  /** What the latest compaction saved, as a fraction of what the history counted before it (negative when it grew). */
  readonly saved: number;
  /** How many messages the history held after the latest compaction. */
  readonly length: number;
}

/**
 * The invocation-state key under which `compaction` keeps its
 * {@link CompactionState}: absent until the run's first compaction.
 *
 * @example
 * ```ts
 * registry.add(TurnStage.Input, (context) => {
 *   const state = CompactionStateKey.get(context);
 *   if (state?.fallback === true) console.warn(`compaction fell back after ${state.failures} failed summaries`);
 *   return context;
 * });
 * ```
 */
export const CompactionStateKey: StateKey<CompactionState> = /*#__PURE__*/ createStateKey<CompactionState>('staged-middleware.compaction');

/**
 * The state of the run when the key holds a well-formed one (it may come
 * from a restored snapshot: outside data), else undefined.
 */
export function readCompactionState(carrier: StateCarrier): CompactionState | undefined {
  const held: unknown = CompactionStateKey.get(carrier);
  if (!isObject(held)) return undefined;
  const field = (key: string): unknown => ownEntry(held, key);
  const summary = field('summary');
  const fallback = field('fallback');
  const [compactions, failures, saved, length] = ['compactions', 'failures', 'saved', 'length'].map(field);
  if (typeof summary !== 'string' || typeof fallback !== 'boolean') return undefined;
  if (![compactions, failures, length].every((count) => typeof count === 'number' && Number.isInteger(count) && count >= 0))
    return undefined;
  if (typeof saved !== 'number' || !Number.isFinite(saved)) return undefined;
  return Object.freeze({ summary, fallback, compactions, failures, saved, length } as CompactionState);
}
