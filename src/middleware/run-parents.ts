/**
 * One span tree per run (MW-192): while a layer entry that opens a run is
 * open, the invokes that join the same run are children of that entry's span,
 * whether or not the application registered a context manager and whether or
 * not `api` is given. Which entries open a run and which invokes join it, and
 * by what object a run is known, the span conventions say
 * (`tracing-conventions.ts`); the agent kit's join an agent run's model, tool
 * and turn invokes to its AgentStreamStage terminal by their invocation state.
 *
 * @packageDocumentation
 */
import type { InvokeInfo, LayerInfo } from '../core/index';
import { firstAnswer, type TracingConventions } from './tracing-conventions';

/** The open run-opening entries of one `tracing()` instance, by their run. */
export interface RunParents<TEntry extends { readonly span: unknown }> {
  /** Notes a layer entry opening; returns what undoes it when the entry settles, or undefined when it opens no run. */
  readonly open: (layer: LayerInfo, entry: TEntry) => (() => void) | undefined;
  /**
   * The entry an invoke belongs to, or undefined: of the open entries of the run it joins, the one whose span is
   * `activeSpan` (the caller's active span, when a context manager tells it), else the latest opened.
   */
  readonly of: (info: InvokeInfo, activeSpan: unknown) => TEntry | undefined;
}

/** The open entries of one `tracing()` instance, runs told by `conventions`. */
export function runParents<TEntry extends { readonly span: unknown }>(conventions: readonly TracingConventions[]): RunParents<TEntry> {
  // Weak: a run that nobody holds any more takes its entry list with it.
  const open = new WeakMap<object, TEntry[]>();
  return {
    open: (layer, entry) => {
      const run = firstAnswer(conventions, (each) => each.opensRun?.(layer));
      if (!isRun(run)) return undefined;
      let entries = open.get(run);
      if (entries === undefined) open.set(run, (entries = []));
      entries.push(entry);
      const list = entries;
      return () => {
        const index = list.lastIndexOf(entry);
        if (index >= 0) list.splice(index, 1);
      };
    },
    of: (info, activeSpan) => {
      const run = firstAnswer(conventions, (each) => each.joinsRun?.(info));
      const entries = isRun(run) ? open.get(run) : undefined;
      if (entries === undefined) return undefined;
      // Two entries of one run open at once (a hedging handler): the context manager knows whose code this is.
      return entries.find((entry) => entry.span === activeSpan) ?? entries[entries.length - 1];
    },
  };
}

/** Whether a run answer can key a `WeakMap`: a JavaScript convention may answer anything. */
function isRun(run: unknown): run is object {
  return (typeof run === 'object' && run !== null) || typeof run === 'function';
}
