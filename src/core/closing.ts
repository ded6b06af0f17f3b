/**
 * Closing what an invoke left open: the outermost layer, when the consumer
 * stops the invoke or an error ends it, and the inner chains Wrap handlers
 * started with `next()` and did not finish (MW-016, MW-021, MW-022, MW-060).
 * One routine closes the inner chains ({@link closeStarted}), and
 * {@link closeOpen} closes the outermost layer before it: the invoke's two
 * ways of ending early ({@link failInvoke}, {@link stopInvoke}) use the
 * latter, its completion the former, going on to deliver the result in the
 * same async step.
 *
 * @packageDocumentation
 */
import * as messages from './messages';
import { MiddlewareError } from './errors';
import type { TrackedChain } from './fast-path';
import type { InvokeFrame } from './invoke-frame';
import type { LayerGenerator } from './layer';
import type { InvokeOutcome } from './instrumentation';

/** How an invoke settled (see {@link settle}): its result delivered, failed, or stopped by its consumer. */
export type Settlement = 'success' | 'failure' | 'closed';

const CLOSED_OUTCOME: InvokeOutcome = Object.freeze({ status: 'closed' });

const END: IteratorReturnResult<void> = Object.freeze({ value: undefined, done: true });

/** An error thrown while closing (a wrapper, since `undefined` can be thrown too). */
export interface ClosingFailure {
  /** The error. */
  readonly error: unknown;
}

/**
 * The one closing routine: closes `outermost` (the outermost layer, when it
 * is open; its handlers may still start inner chains while they unwind),
 * then the inner chains left open, most recent first, from which point on
 * `next()` fails (MW-017). Every layer is closed even when one's `finally`
 * throws; the last error thrown while closing is the result, as in nested
 * finallys. Answers undefined at once when nothing is open, so an invoke
 * that started no inner chain awaits nothing here.
 */
export function closeOpen(invoke: InvokeFrame, outermost: LayerGenerator | undefined): Promise<ClosingFailure | undefined> | undefined {
  if (outermost !== undefined) return closeOutermostFirst(invoke, outermost);
  return closeStarted(invoke, reportFailure, undefined);
}

/** What comes after the closing, in the same async step: given the target and the closing's failure, if any. */
export type AfterClosing<TTarget, TResult> = (target: TTarget, failure: ClosingFailure | undefined) => TResult | PromiseLike<TResult>;

/** The continuation of {@link closeOpen}: the failure itself. */
const reportFailure: AfterClosing<undefined, ClosingFailure | undefined> = (_target, failure) => failure;

/**
 * Marks the invoke settled, from which point on `next()` fails (MW-017), and
 * closes the chains `next()` started, most recent first; then answers what
 * `after` makes of the outcome. Answers undefined at once, calling nothing,
 * when no chain was started.
 *
 * Why a continuation rather than a promise of the failure for the caller
 * to await: the invoke's completion has to answer its consumer after the
 * closing, and a second async step would cost it a promise and a
 * promise-job turn of its own on every invoke whose handlers called
 * `next()`.
 */
export function closeStarted<TTarget, TResult>(
  invoke: InvokeFrame,
  after: AfterClosing<TTarget, TResult>,
  target: TTarget,
): Promise<TResult> | undefined {
  invoke.settled = true;
  const { started, open } = invoke;
  if (started === undefined) return undefined;
  invoke.started = undefined;
  invoke.open = undefined;
  return closeChains(open, started, after, target);
}

async function closeOutermostFirst(invoke: InvokeFrame, outermost: LayerGenerator): Promise<ClosingFailure | undefined> {
  let failure: ClosingFailure | undefined;
  try {
    await outermost.return(undefined);
  } catch (error) {
    failure = { error };
  }
  const closingInner = closeOpen(invoke, undefined);
  return (closingInner === undefined ? undefined : await closingInner) ?? failure;
}

/** Closes the chains `next()` started, most recent first: the later ones still open, then the first ones (closing one that ended changes nothing). */
async function closeChains<TTarget, TResult>(
  open: ReadonlySet<TrackedChain> | undefined,
  started: readonly LayerGenerator[],
  after: AfterClosing<TTarget, TResult>,
  target: TTarget,
): Promise<TResult> {
  let failure: ClosingFailure | undefined;
  // The later chains come after the first ones, so one walk from the end closes them first.
  const chains: readonly LayerGenerator[] = open === undefined ? started : [...started, ...open];
  for (let index = chains.length - 1; index >= 0; index--) {
    try {
      await (chains[index] as LayerGenerator).return(undefined);
    } catch (error) {
      failure = { error };
    }
  }
  return after(target, failure);
}

/** The invoke settled: the links of narrowed signals are released and the outcome reported to the observers (built only when observed); runs once. */
export function settle(invoke: InvokeFrame, status: Settlement, value: unknown): void {
  invoke.settled = true;
  const links = invoke.links;
  if (links !== undefined) {
    invoke.links = undefined;
    for (const link of links) link.release();
  }
  const observation = invoke.observation;
  if (observation === undefined) return;
  invoke.observation = undefined;
  let outcome = CLOSED_OUTCOME;
  if (status === 'success') outcome = Object.freeze({ status: 'success', result: value });
  else if (status === 'failure') outcome = Object.freeze({ status: 'error', error: value });
  observation.end(outcome);
}

/**
 * Ends an invoke after `error`: closes what is open (an error thrown while
 * closing replaces the one being unwound, MW-021), then decides which error
 * the consumer sees, and settles the invoke with it.
 */
export async function failInvoke(invoke: InvokeFrame, outermost: LayerGenerator | undefined, error: unknown): Promise<unknown> {
  const closing = closeOpen(invoke, outermost);
  const failure = closing === undefined ? undefined : await closing;
  let outcome = failure === undefined ? error : failure.error;
  const signal = invoke.signal;
  if (
    signal !== undefined &&
    signal.aborted &&
    !(MiddlewareError.isInstance(outcome) && outcome.code === 'ERR_ABORTED' && outcome.cause === signal.reason)
  ) {
    // Abort wins over whatever the layers made of it (MW-024), even if a handler swallowed it
    // or a narrowed signal's abort (with another reason) reached the consumer first.
    outcome = messages.aborted(invoke.stageName, signal.reason);
  }
  settle(invoke, 'failure', outcome);
  return outcome;
}

/**
 * Ends an invoke its consumer stopped (`return()`, `throw()`): what is open
 * is closed and the invoke settles as closed (an invoke that has not started
 * or has settled already has nothing open and reports nothing again); then
 * `throw()` rejects with its error (an error thrown while closing comes
 * first), and `return()` ends.
 */
export async function stopInvoke(
  invoke: InvokeFrame,
  outermost: LayerGenerator | undefined,
  rethrow: boolean,
  error: unknown,
): Promise<IteratorReturnResult<void>> {
  const closing = closeOpen(invoke, outermost);
  const failure = closing === undefined ? undefined : await closing;
  settle(invoke, 'closed', undefined);
  if (failure !== undefined) throw failure.error;
  if (rethrow) throw error;
  return END;
}
