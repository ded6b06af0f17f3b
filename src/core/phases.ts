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
import type { ResolvedChain, ResolvedEntry } from './chain';
import { MiddlewareResult } from './result';
import { parseWithSchema } from './schema';
import type { HandlerCall, Schema } from './types';
import { isThenable } from '../util/thenable';
import { deepFreeze } from '../util/deep-freeze';
import { enter } from './compose';
import type { HandlerInfo } from './instrumentation';
import type { InvokeFrame, Later } from './invoke-frame';
import type { LayerGenerator } from './layer';
import { InvokeObservation } from './observation';
import { settle } from './closing';
import { neverSignal } from './signals';
import { StateIsolation } from './state';

type Phase = HandlerInfo['phase'];

/** Calls one handler of `phase` with the value so far and its `HandlerCall` (MW-010, MW-011); an Output handler's result is taken over (MW-038) first. */
function call(invoke: InvokeFrame, phase: Phase, entry: ResolvedEntry, value: unknown): unknown {
  // A fresh object per call: a handler that changes it changes nothing another handler sees.
  const handlerCall: HandlerCall = { stage: invoke.stage, signal: invoke.signal ?? neverSignal(), handler: entry.name };
  if (phase === 'output') {
    // A result of another copy of the library may hold a value its constructor did not freeze.
    deepFreeze((value as MiddlewareResult<unknown>).value);
  }
  return (entry.handler as (value: unknown, call: HandlerCall) => unknown)(value, handlerCall);
}

/** What a handler of `phase` produced, as the value to go on with. @throws the phase's contract error. */
function checked(invoke: InvokeFrame, phase: Phase, entry: ResolvedEntry, produced: unknown): unknown {
  if (phase === 'input') {
    if (produced === undefined || produced === null) throw messages.inputContract(invoke.culprit('input', entry.name), produced);
  } else if (!MiddlewareResult.isInstance(produced)) {
    throw messages.outputContract(invoke.culprit('output', entry.name), produced);
  }
  return produced;
}

/** The position in its phase of the handler that runs at `step`: Input handlers run in registration order; the first Output handler is outermost, so it runs last. */
function positionOf(phase: Phase, entries: readonly ResolvedEntry[], step: number): number {
  return phase === 'input' ? step : entries.length - 1 - step;
}

/**
 * What a phase answers in place of its value when it goes on asynchronously; the value then comes from
 * `invoke.later`. A symbol of our own rather than a promise, since the value itself may be a promise.
 */
export const LATER: unique symbol = Symbol('later');

/**
 * Runs the handlers of one plain phase over `value` from step `from` on,
 * reporting each call to the observers and checking the invoke's signal
 * after each: the final value, or {@link LATER} once a handler returns a promise.
 */
function runPhase(invoke: InvokeFrame, phase: Phase, entries: readonly ResolvedEntry[], value: unknown, from: number): unknown {
  for (let step = from; step < entries.length; step++) {
    const position = positionOf(phase, entries, step);
    const entry = entries[position] as ResolvedEntry;
    const info = invoke.observation === undefined ? undefined : invoke.observation.handlerStart(phase, entry, position);
    try {
      const produced = call(invoke, phase, entry, value);
      if (isThenable(produced)) return later(invoke, resumePhase(invoke, phase, entries, step, info, produced));
      value = checked(invoke, phase, entry, produced);
    } catch (error) {
      if (info !== undefined) (invoke.observation as InvokeObservation).handlerFailed(info, error);
      throw error;
    }
    if (info !== undefined) (invoke.observation as InvokeObservation).handlerEnd(info);
    invoke.throwIfAborted();
  }
  return value;
}

/** Answers {@link LATER}, the value to come from `pending`. */
function later(invoke: InvokeFrame, pending: Promise<Later>): typeof LATER {
  invoke.later = pending;
  return LATER;
}

/** The value {@link LATER} stands for, taken from the invoke. */
function takeLater(invoke: InvokeFrame): Promise<Later> {
  const pending = invoke.later as Promise<Later>;
  invoke.later = undefined;
  return pending;
}

/** {@link runPhase} from the step whose handler returned `pending`. */
async function resumePhase(
  invoke: InvokeFrame,
  phase: Phase,
  entries: readonly ResolvedEntry[],
  step: number,
  info: HandlerInfo | undefined,
  pending: PromiseLike<unknown>,
): Promise<Later> {
  const entry = entries[positionOf(phase, entries, step)] as ResolvedEntry;
  let value: unknown;
  try {
    value = checked(invoke, phase, entry, await pending);
  } catch (error) {
    if (info !== undefined) (invoke.observation as InvokeObservation).handlerFailed(info, error);
    throw error;
  }
  if (info !== undefined) (invoke.observation as InvokeObservation).handlerEnd(info);
  invoke.throwIfAborted();
  const rest = runPhase(invoke, phase, entries, value, step + 1);
  return rest === LATER ? takeLater(invoke) : { value: rest };
}

/**
 * Starts an invoke: its observers, the Input phase, the context schema, the
 * state snapshot, and the outermost layer. Synchronous (the outermost layer
 * itself) while the Input handlers are and the stage has no context schema,
 * so that the first pull of most invokes awaits nothing here.
 */
export function start(invoke: InvokeFrame, chain: ResolvedChain): LayerGenerator | Promise<LayerGenerator> {
  if (chain.instrumentations.length > 0) invoke.observation = InvokeObservation.start(chain, invoke.context, invoke.signal);
  let context = invoke.context;
  if (chain.input.length > 0) {
    // Only what a handler returns is awaited: a context that happens to be a thenable is passed on as it is.
    const phased = runPhase(invoke, 'input', chain.input, context, 0);
    if (phased === LATER) return startAsync(invoke, chain, takeLater(invoke), undefined);
    context = phased;
  }
  if (chain.stage.contextSchema !== undefined) return startAsync(invoke, chain, undefined, context);
  return enterOutermost(invoke, chain, context);
}

/** {@link start} once something is asynchronous: `pending` is the Input phase still running, else `context` the context it ended with. */
async function startAsync(
  invoke: InvokeFrame,
  chain: ResolvedChain,
  pending: Promise<Later> | undefined,
  context: unknown,
): Promise<LayerGenerator> {
  if (pending !== undefined) context = (await pending).value;
  const schema = chain.stage.contextSchema as Schema<unknown> | undefined;
  if (schema !== undefined)
    context = (await parseWithSchema(schema, context, (issues) => messages.schemaFailed(invoke.stageName, 'context', issues))).data;
  return enterOutermost(invoke, chain, context);
}

/** The state snapshot, then the outermost layer entered with the final context. */
function enterOutermost(invoke: InvokeFrame, chain: ResolvedChain, context: unknown): LayerGenerator {
  if (invoke.binding !== undefined) invoke.state = new StateIsolation(invoke.binding, invoke.stageName);
  return enter(invoke, chain, 0, context, invoke.signal ?? neverSignal(), undefined);
}

/**
 * Finishes a successful invoke from the value the chain ended with: the
 * Output phase (whose result is taken over, MW-038, so a handler that mutates
 * it fails at once), the result schema, a last abort check and the state
 * writeback. The final value, or {@link LATER} when a handler or the schema
 * is asynchronous: the value then comes from {@link finishLater}.
 */
export function finish(invoke: InvokeFrame, chain: ResolvedChain, value: unknown): unknown {
  const output = chain.output;
  if (output.length > 0) {
    const transformed = runPhase(invoke, 'output', output, new MiddlewareResult<unknown>(value), 0);
    if (transformed === LATER) return later(invoke, finishAsync(invoke, takeLater(invoke)));
    value = (transformed as MiddlewareResult<unknown>).value;
  }
  if (chain.stage.resultSchema !== undefined) return later(invoke, finishAsync(invoke, undefined, value));
  return release(invoke, value);
}

/** The final value {@link finish} answered {@link LATER} for, boxed. */
export function finishLater(invoke: InvokeFrame): Promise<Later> {
  return takeLater(invoke);
}

/** {@link finish} once something is asynchronous: `transformed` is the Output phase still running, else `value` the value it ended with. */
async function finishAsync(invoke: InvokeFrame, transformed: Promise<Later> | undefined, value?: unknown): Promise<Later> {
  if (transformed !== undefined) value = ((await transformed).value as MiddlewareResult<unknown>).value;
  const schema = invoke.stage.resultSchema as Schema<unknown> | undefined;
  if (schema !== undefined)
    value = (await parseWithSchema(schema, value, (issues) => messages.schemaFailed(invoke.stageName, 'result', issues))).data;
  return { value: release(invoke, value) };
}

/** The invoke succeeded with `value`, unless its signal aborted meanwhile: the state is written back and the outcome reported. */
function release(invoke: InvokeFrame, value: unknown): unknown {
  invoke.throwIfAborted();
  invoke.state?.writeBack();
  settle(invoke, 'success', value);
  return value;
}
