/**
 * The once-per-invoke phases around the onion (composition order: see
 * `compose.ts`): starting an invoke (the Input phase, the context schema,
 * the state snapshot, entering the outermost layer) and finishing it (the
 * Output phase, the result schema, the state writeback).
 *
 * Both plain phases run through one loop, {@link runPhase}. It is
 * synchronous while the handlers are, and continues asynchronously from the
 * first handler that returns a promise, so an invoke whose handlers and
 * schemas are synchronous awaits nothing here: each `await` would cost
 * promise-job turns on every invoke.
 *
 * @packageDocumentation
 */
import * as messages from './messages';
import type { ResolvedEntry } from './chain';
import { MiddlewareResult } from './result';
import { parseWithSchema } from './schema';
import type { HandlerCall, Schema } from './types';
import { isThenable } from '../util/thenable';
import { deepFreeze } from '../util/deep-freeze';
import { enter } from './compose';
import type { HandlerInfo } from './instrumentation';
import type { LayerGenerator } from './layer';
import { InvokeObservation } from './observation';
import { settle, SUCCESS } from './closing';
import type { InvokeRun } from './run';
import { neverSignal } from './signals';
import { StateIsolation } from './state';

type Phase = HandlerInfo['phase'];

/** Calls one handler of `phase` with the value so far and its `run` (MW-010, MW-011); an Output handler's result is taken over (MW-038) first. */
function call(run: InvokeRun, phase: Phase, entry: ResolvedEntry, value: unknown): unknown {
  // A fresh object per call: a handler that changes it changes nothing another handler sees.
  const handlerRun: HandlerCall = { stage: run.chain.stage, signal: run.signal ?? neverSignal(), handler: entry.name };
  if (phase === 'output') {
    // A result of another copy of the library may hold a value its constructor did not freeze.
    deepFreeze((value as MiddlewareResult<unknown>).value);
  }
  return (entry.handler as (value: unknown, run: HandlerCall) => unknown)(value, handlerRun);
}

/** What a handler of `phase` produced, as the value to go on with. @throws the phase's contract error. */
function checked(run: InvokeRun, phase: Phase, entry: ResolvedEntry, produced: unknown): unknown {
  if (phase === 'input') {
    if (produced === undefined || produced === null) throw messages.inputContract(run.culprit('input', entry.name), produced);
  } else if (!MiddlewareResult.isInstance(produced)) {
    throw messages.outputContract(run.culprit('output', entry.name), produced);
  }
  return produced;
}

/** The position in its phase of the handler that runs at `step`: Input handlers run in registration order; the first Output handler is outermost, so it runs last. */
function positionOf(phase: Phase, entries: readonly ResolvedEntry[], step: number): number {
  return phase === 'input' ? step : entries.length - 1 - step;
}

/**
 * A value a phase produced asynchronously, in a box: a promise resolved with the value itself would adopt a
 * context or result that is a thenable, where the invoke must hand it on as it is (MW-039).
 */
export interface Later {
  /** The value. */
  readonly value: unknown;
}

/**
 * What a phase answers in place of its value when it goes on asynchronously; the value then comes from
 * `run.later`. A symbol of our own rather than a promise, since the value itself may be a promise.
 */
export const LATER: unique symbol = Symbol('later');

/**
 * Runs the handlers of one plain phase over `value` from step `from` on,
 * reporting each call to the observers and checking the invoke's signal
 * after each: the final value, or {@link LATER} once a handler returns a promise.
 */
function runPhase(run: InvokeRun, phase: Phase, entries: readonly ResolvedEntry[], value: unknown, from: number): unknown {
  for (let step = from; step < entries.length; step++) {
    const position = positionOf(phase, entries, step);
    const entry = entries[position] as ResolvedEntry;
    const info = run.observation === undefined ? undefined : run.observation.handlerStart(phase, entry, position);
    try {
      const produced = call(run, phase, entry, value);
      // Stryker disable next-line ConditionalExpression: resumePhase() awaits a plain value and goes on the same; the check keeps a synchronous phase synchronous.
      if (isThenable(produced)) return later(run, resumePhase(run, phase, entries, step, info, produced));
      value = checked(run, phase, entry, produced);
    } catch (error) {
      if (info !== undefined) (run.observation as InvokeObservation).handlerFailed(info, error);
      throw error;
    }
    if (info !== undefined) (run.observation as InvokeObservation).handlerEnd(info);
    run.throwIfAborted();
  }
  return value;
}

/** Answers {@link LATER}, the value to come from `pending`. */
function later(run: InvokeRun, pending: Promise<Later>): typeof LATER {
  run.later = pending;
  return LATER;
}

/** The value {@link LATER} stands for, taken from the run. */
function takeLater(run: InvokeRun): Promise<Later> {
  const pending = run.later as Promise<Later>;
  run.later = undefined;
  return pending;
}

/** {@link runPhase} from the step whose handler returned `pending`. */
async function resumePhase(
  run: InvokeRun,
  phase: Phase,
  entries: readonly ResolvedEntry[],
  step: number,
  info: HandlerInfo | undefined,
  pending: PromiseLike<unknown>,
): Promise<Later> {
  const entry = entries[positionOf(phase, entries, step)] as ResolvedEntry;
  let value: unknown;
  try {
    value = checked(run, phase, entry, await pending);
  } catch (error) {
    if (info !== undefined) (run.observation as InvokeObservation).handlerFailed(info, error);
    throw error;
  }
  if (info !== undefined) (run.observation as InvokeObservation).handlerEnd(info);
  run.throwIfAborted();
  const rest = runPhase(run, phase, entries, value, step + 1);
  return rest === LATER ? takeLater(run) : { value: rest };
}

/**
 * Starts an invoke: its observers, the Input phase, the context schema, the
 * state snapshot, and the outermost layer. Synchronous (the outermost layer
 * itself) while the Input handlers are and the stage has no context schema,
 * so that the first pull of most invokes awaits nothing here.
 */
export function start(run: InvokeRun): LayerGenerator | Promise<LayerGenerator> {
  const chain = run.chain;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: with no instrumentation InvokeObservation.start() answers undefined as well; the check only spares the call.
  if (chain.instrumentations.length > 0) run.observation = InvokeObservation.start(chain, run.context, run.signal);
  let context = run.context;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: runPhase() over no handlers answers the context as it is; the check only spares the call.
  if (chain.input.length > 0) {
    // Only what a handler returns is awaited: a context that happens to be a thenable is passed on as it is.
    const phased = runPhase(run, 'input', chain.input, context, 0);
    if (phased === LATER) return startAsync(run, takeLater(run), undefined);
    context = phased;
  }
  // Stryker disable next-line ConditionalExpression: startAsync() without a schema enters with the same context; the check keeps a start without a schema synchronous.
  if (chain.stage.contextSchema !== undefined) return startAsync(run, undefined, context);
  return enterOutermost(run, context);
}

/** {@link start} once something is asynchronous: `pending` is the Input phase still running, else `context` the context it ended with. */
async function startAsync(run: InvokeRun, pending: Promise<Later> | undefined, context: unknown): Promise<LayerGenerator> {
  if (pending !== undefined) context = (await pending).value;
  const schema = run.chain.stage.contextSchema as Schema<unknown> | undefined;
  if (schema !== undefined)
    context = (await parseWithSchema(schema, context, (issues) => messages.schemaFailed(run.stageName, 'context', issues))).data;
  return enterOutermost(run, context);
}

/** The state snapshot, then the outermost layer entered with the final context. */
function enterOutermost(run: InvokeRun, context: unknown): LayerGenerator {
  if (run.binding !== undefined) run.state = new StateIsolation(run.binding, run.stageName);
  return enter(run, 0, context, run.signal ?? neverSignal(), undefined);
}

/**
 * Finishes a successful invoke from the value the chain ended with: the
 * Output phase (whose result is taken over, MW-038, so a handler that mutates
 * it fails at once), the result schema, a last abort check and the state
 * writeback. The final value, or {@link LATER} when a handler or the schema
 * is asynchronous: the value then comes from {@link finishLater}.
 */
export function finish(run: InvokeRun, value: unknown): unknown {
  const output = run.chain.output;
  if (output.length > 0) {
    const transformed = runPhase(run, 'output', output, new MiddlewareResult<unknown>(value), 0);
    if (transformed === LATER) return later(run, finishAsync(run, takeLater(run)));
    value = (transformed as MiddlewareResult<unknown>).value;
  }
  // Stryker disable next-line ConditionalExpression: finishAsync() without a schema releases the same value; the check keeps a finish without a schema synchronous.
  if (run.chain.stage.resultSchema !== undefined) return later(run, finishAsync(run, undefined, value));
  return release(run, value);
}

/** The final value {@link finish} answered {@link LATER} for, boxed. */
export function finishLater(run: InvokeRun): Promise<Later> {
  return takeLater(run);
}

/** {@link finish} once something is asynchronous: `transformed` is the Output phase still running, else `value` the value it ended with. */
async function finishAsync(run: InvokeRun, transformed: Promise<Later> | undefined, value?: unknown): Promise<Later> {
  if (transformed !== undefined) value = ((await transformed).value as MiddlewareResult<unknown>).value;
  const schema = run.chain.stage.resultSchema as Schema<unknown> | undefined;
  if (schema !== undefined)
    // Stryker disable next-line StringLiteral: schemaFailed() tells only 'context' apart; any other word gives the result schema's error.
    value = (await parseWithSchema(schema, value, (issues) => messages.schemaFailed(run.stageName, 'result', issues))).data;
  return { value: release(run, value) };
}

/** The invoke succeeded with `value`, unless its signal aborted meanwhile: the state is written back and the outcome reported. */
function release(run: InvokeRun, value: unknown): unknown {
  run.throwIfAborted();
  run.state?.writeBack();
  settle(run, SUCCESS, value);
  return value;
}
