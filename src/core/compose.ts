/**
 * The onion: how one invoke composes its handlers around the terminal.
 *
 * Composition order, outermost first:
 *
 *   Input handlers ⊃ Output handlers ⊃ Wrap handlers ⊃ terminal
 *
 * The Input handlers run first, one after the other in registration order,
 * and the Output handlers last, one after the other with the first registered
 * outermost, so it transforms last (both plain loops, `phases.ts`). Between
 * them sits the onion this file builds: layer `i` is Wrap handler `i`, and
 * each call of its `next()` enters layer `i + 1` afresh, so a handler can
 * retry, run inner chains side by side, or not call it at all; past the last
 * Wrap handler, `next()` calls the terminal. Nothing is entered before a
 * handler asks for it.
 *
 * Why `next()` returns the inner layer's own generator rather than a wrapper
 * around it: a wrapper would cost a promise reaction on every event of every
 * layer. Past the first inner chains of an invoke they are wrapped after all,
 * so that they can be forgotten once they end (`fast-path/tracked-chain.ts`).
 *
 * @packageDocumentation
 */
import * as messages from './messages';
import type { ResolvedChain, ResolvedEntry } from './chain';
import type { Next, NextOptions } from './types';
import { isAbortSignal } from '../util/abort-signal';
import { describeValue } from '../util/describe-value';
import { track } from './fast-path';
import type { LayerInfo } from './instrumentation';
import type { InvokeFrame } from './invoke-frame';
import { asGenerator, requireACall, type LayerGenerator } from './layer';
import type { InvokeObservation } from './observation';
import { narrowSignal, type Link } from './signals';
import { isObject } from '../util/is-object';

type ErasedWrap = (context: unknown, next: unknown, call: unknown) => unknown;

/** Enters layer `index` of the onion (the terminal when past the last Wrap handler); `parent` is the entry whose `next()` asked for it. */
export function enter(
  invoke: InvokeFrame,
  chain: ResolvedChain,
  index: number,
  context: unknown,
  signal: AbortSignal,
  parent: LayerInfo | undefined,
): LayerGenerator {
  const wrap = chain.wrap;
  // Created before the handler runs, so that the layers it enters can name it as their parent.
  const observation = invoke.observation;
  const info = observation === undefined ? undefined : observation.layerInfo(index, context, parent);
  let generator: LayerGenerator;
  if (index === wrap.length) {
    generator = enterTerminal(invoke, index === 0, context, signal);
  } else {
    const entry = wrap[index] as ResolvedEntry;
    const activation = { calls: 0 };
    const next = nextFor(invoke, chain, index, context, signal, entry, activation, info);
    const produced = (entry.handler as ErasedWrap)(context, next, { stage: invoke.stage, signal, handler: entry.name });
    generator = asGenerator(produced, invoke.stageName, 'wrap', entry.name);
    if (entry.next === 'once') generator = requireACall(generator, activation, () => invoke.culprit('wrap', entry.name));
  }
  if (info !== undefined) generator = (observation as InvokeObservation).wrapLayer(info, generator);
  return generator;
}

/** The `next` one activation of Wrap handler `index` receives: each call enters a fresh inner chain. */
function nextFor(
  invoke: InvokeFrame,
  chain: ResolvedChain,
  index: number,
  context: unknown,
  signal: AbortSignal,
  entry: ResolvedEntry,
  activation: { calls: number },
  info: LayerInfo | undefined,
): Next<unknown, unknown> {
  return (nextContext?: unknown, options?: NextOptions): LayerGenerator => {
    if (invoke.settled) throw messages.nextAfterSettle(invoke.culprit('wrap', entry.name));
    activation.calls++;
    if (entry.next !== 'many' && activation.calls > 1)
      throw messages.nextPolicy(invoke.culprit('wrap', entry.name), entry.next, activation.calls);
    let innerSignal = signal;
    let link: Link | undefined;
    if (options !== undefined) {
      if (!isObject(options)) {
        throw messages.invalidNextOptions(invoke.culprit('wrap', entry.name), `options that are ${describeValue(options)}, not an object`);
      }
      const given = options.signal as unknown;
      if (given !== undefined) {
        if (!isAbortSignal(given))
          throw messages.invalidNextOptions(
            invoke.culprit('wrap', entry.name),
            `options.signal set to ${describeValue(given)}, not an AbortSignal`,
          );
        ({ signal: innerSignal, link } = narrowSignal(signal, given));
      }
    }
    // The invoke's own signal through the invoke's check, which reads the flag of a signal the library made.
    if (innerSignal === invoke.signal) invoke.throwIfAborted();
    else if (innerSignal.aborted) throw messages.aborted(invoke.stageName, innerSignal.reason);
    let generator: LayerGenerator;
    try {
      generator = enter(invoke, chain, index + 1, nextContext === undefined ? context : nextContext, innerSignal, info);
    } catch (error) {
      link?.release();
      throw error;
    }
    return track(invoke, generator, link);
  };
}

/** One call of the terminal, with a fresh state draft when the invoke has a state binding; `outermost` when there are no Wrap handlers. */
function enterTerminal(invoke: InvokeFrame, outermost: boolean, context: unknown, signal: AbortSignal): LayerGenerator {
  const { terminal, stageName, state, stage } = invoke;
  if (state === undefined) return asGenerator(terminal(context, { stage, signal, state: undefined }), stageName, 'terminal', 'terminal');
  const call = (draft: unknown): LayerGenerator =>
    asGenerator(terminal(context, { stage, signal, state: draft }), stageName, 'terminal', 'terminal');
  return state.terminalCall(call, outermost);
}
