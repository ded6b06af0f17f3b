import type { Draft } from 'immer';
import { invalidOption } from '../middleware/errors';
import { optionalTimers } from '../middleware/options';
import { brand, isBranded } from '../util/brand';
import { named } from '../middleware/named';
import { schedule, systemTimers, type Timers } from '../util/timers';
import type { TerminalCall } from '../core/index';

/** Which action a script step is; a `Symbol.for` key, so that every copy of the package reads it, and one no event type has. */
const ACTION: unique symbol = Symbol.for('staged-middleware.testing.script-action') as never;

/** A step that is not an event: throw, wait, or change the state draft. Made by {@link throws}, {@link waits}, {@link updatesState}. */
export type ScriptAction =
  | { readonly [ACTION]: 'throw'; readonly error: unknown }
  | { readonly [ACTION]: 'wait'; readonly ms: number }
  | { readonly [ACTION]: 'state'; readonly recipe: (draft: never) => void };

/** One step of a call's script: an event to yield, or an action. */
export type ScriptStep<TEvent> = TEvent | ScriptAction;

/**
 * A step that throws `error` (the very object, so tests can check it arrives unchanged).
 *
 * @example
 * ```ts
 * const terminal = scriptedTerminal([[{ type: 'chunk', text: 'Hel' }, throws(new Error('reset'))]]);
 * ```
 */
export function throws(error: unknown): ScriptAction {
  return brand({ [ACTION]: 'throw', error }, 'script-action');
}

/**
 * A step that waits `ms` milliseconds, however long (`Infinity`: until the call's signal
 * aborts). When the signal aborts, the call throws the signal's reason, as `fetch` does.
 *
 * @example
 * ```ts
 * const slow = scriptedTerminal([[waits(5_000), { type: 'result', text: 'late' }]]);
 * ```
 */
export function waits(ms: number): ScriptAction {
  return brand({ [ACTION]: 'wait', ms }, 'script-action');
}

/**
 * A step that changes the call's state draft (`run.state`) with an immer recipe.
 *
 * @example
 * ```ts
 * const terminal = scriptedTerminal([[updatesState<{ turns: number }>((draft) => void draft.turns++), { type: 'result', text: 'hi' }]]);
 * ```
 */
export function updatesState<TState>(recipe: (draft: Draft<TState>) => void): ScriptAction {
  return brand({ [ACTION]: 'state', recipe: recipe }, 'script-action');
}

/** Tells actions from events: only a step `throws`, `waits` or `updatesState` made (in any copy of the package) is an action. */
function isAction(step: unknown): step is ScriptAction {
  return isBranded(step, 'script-action');
}

/** The events a script yields: every step that is not an action. */
export type EventsOf<TScript extends readonly (readonly unknown[])[]> = Exclude<TScript[number][number], ScriptAction>;

/** What one call of a scripted terminal received and how it ended. */
export interface RecordedTerminalCall<TContext> {
  /** The context the call received. */
  readonly context: TContext;
  /** The call's signal. */
  readonly signal: AbortSignal;
  /** Events yielded so far. */
  events: number;
  /** `'running'` until the call ends; `'closed'` when it was stopped at a yield. */
  outcome: 'running' | 'completed' | 'threw' | 'closed';
}

/** A terminal that plays a script, with a record of its calls. */
export interface ScriptedTerminal<TContext, TEvent> {
  /** Runs the script of the next call. */
  (context: TContext, run: TerminalCall<unknown>): AsyncGenerator<TEvent, void, undefined>;
  /** One record per call, in call order. */
  readonly calls: RecordedTerminalCall<TContext>[];
}

/** Options of {@link scriptedTerminal}. */
export interface ScriptedTerminalOptions {
  /** Clock for `waits` (`setTimeout` / `clearTimeout`). Default: the runtime's timers (so fake timers apply). */
  readonly timers?: Pick<Timers, 'setTimeout' | 'clearTimeout'>;
}

/**
 * A terminal for tests. Call n plays `script[n]`; calls past the end replay
 * the last script. Each script is a list of events to yield and actions
 * ({@link throws}, {@link waits}, {@link updatesState}).
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for a script that is not a non-empty array of arrays, or timers without `setTimeout`/`clearTimeout`.
 * @example
 * ```ts
 * const terminal = scriptedTerminal([[throws(new Error('overloaded'))], [{ type: 'result', text: 'hi' }]]);
 * ```
 */
export function scriptedTerminal<const TScript extends readonly (readonly unknown[])[], TContext = unknown>(
  script: TScript,
  options: ScriptedTerminalOptions = {},
): ScriptedTerminal<TContext, EventsOf<TScript>> {
  if (!Array.isArray(script) || script.length === 0 || !script.every((call) => Array.isArray(call))) {
    throw invalidOption(
      'scriptedTerminal',
      'script must be a non-empty array with one array of steps per call, e.g. [[event1, event2]]',
      script,
    );
  }
  const timers = optionalTimers('scriptedTerminal', options.timers, ['setTimeout', 'clearTimeout']) ?? systemTimers;
  const calls: RecordedTerminalCall<TContext>[] = [];
  const terminal = async function* scriptedTerminal(
    context: TContext,
    run: TerminalCall<unknown>,
  ): AsyncGenerator<EventsOf<TScript>, void, undefined> {
    const steps = script[Math.min(calls.length, script.length - 1)] as readonly ScriptStep<EventsOf<TScript>>[];
    const call: RecordedTerminalCall<TContext> = { context, signal: run.signal, events: 0, outcome: 'running' };
    calls.push(call);
    try {
      for (const step of steps) {
        if (!isAction(step)) {
          call.events++;
          yield step;
          continue;
        }
        if (step[ACTION] === 'throw') throw step.error;
        if (step[ACTION] === 'wait') await wait(step.ms, run.signal, timers);
        else step.recipe(run.state as never);
      }
      call.outcome = 'completed';
    } catch (error) {
      call.outcome = 'threw';
      throw error;
    } finally {
      if (call.outcome === 'running') call.outcome = 'closed';
    }
  };
  return Object.assign(named('scriptedTerminal', terminal), { calls });
}

/** Waits `ms` on `timers`, rejecting with the signal's reason when it aborts. */
function wait(ms: number, signal: AbortSignal, timers: Pick<Timers, 'setTimeout' | 'clearTimeout'>): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<void>((resolve, reject) => {
    const cancel = schedule(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      ms,
      timers,
    );
    const onAbort = (): void => {
      cancel();
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
