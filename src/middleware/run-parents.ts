/**
 * One span tree per agent run (MW-192): the model, tool and turn invokes the
 * reference loop (or a framework's own loop) makes inside the AgentStreamStage
 * terminal are children of that terminal entry's span, whether or not the
 * application registered a context manager and whether or not `api` is given.
 *
 * The run is recognised by its invocation state: every standard context of one
 * run shares that one object by reference (MW-103), and it is the only value
 * they are required to share. Neither the core nor the agent kit is asked for
 * anything, and an invoke outside an agent run is never linked.
 *
 * @packageDocumentation
 */
import { AgentStreamStage, ExecuteToolStage, InvokeModelStage, TurnStage } from '../agent/stages';
import type { AnyStage } from '../core/index';
import { isObject } from '../util/is-object';

/** The open AgentStreamStage terminal entries of one `tracing()` instance, by the invocation state of their run. */
export interface RunParents<TEntry extends { readonly span: unknown }> {
  /** Notes an AgentStreamStage terminal entry opening; returns what undoes it when the entry settles, or undefined for another layer. */
  readonly open: (stage: AnyStage, kind: 'wrap' | 'terminal', context: unknown, entry: TEntry) => (() => void) | undefined;
  /**
   * The entry an invoke of a nested standard stage belongs to, or undefined: of the open entries of its run, the one
   * whose span is `activeSpan` (the caller's active span, when a context manager tells it), else the latest opened.
   */
  readonly of: (stage: AnyStage, context: unknown, activeSpan: unknown) => TEntry | undefined;
}

/** The stages whose invokes happen inside an agent run's terminal. */
const NESTED: ReadonlySet<AnyStage> = new Set<AnyStage>([InvokeModelStage, ExecuteToolStage, TurnStage]);

/** The open entries of one `tracing()` instance. */
export function runParents<TEntry extends { readonly span: unknown }>(): RunParents<TEntry> {
  // Weak: a run's invocation state that nobody holds any more takes its entry list with it.
  const open = new WeakMap<object, TEntry[]>();
  return {
    open: (stage, kind, context, entry) => {
      if (stage !== AgentStreamStage || kind !== 'terminal') return undefined;
      const state = invocationState(context);
      if (state === undefined) return undefined;
      let entries = open.get(state);
      if (entries === undefined) open.set(state, (entries = []));
      entries.push(entry);
      const list = entries;
      return () => {
        const index = list.lastIndexOf(entry);
        if (index >= 0) list.splice(index, 1);
      };
    },
    of: (stage, context, activeSpan) => {
      if (!NESTED.has(stage)) return undefined;
      const state = invocationState(context);
      const entries = state === undefined ? undefined : open.get(state);
      if (entries === undefined) return undefined;
      // Two terminal calls of one run open at once (a hedging handler): the context manager knows whose code this is.
      return entries.find((entry) => entry.span === activeSpan) ?? entries[entries.length - 1];
    },
  };
}

/** The context's invocation state when it is an object; a getter that throws counts as none. */
function invocationState(context: unknown): object | undefined {
  if (!isObject(context)) return undefined;
  try {
    const state = (context as { readonly invocationState?: unknown }).invocationState;
    return isObject(state) ? state : undefined;
  } catch {
    return undefined;
  }
}
