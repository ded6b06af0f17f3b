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
import type { LayerGenerator } from './layer';
import { ReleasingChain } from './releasing-chain';
import type { InvokeOutcome } from './instrumentation';
import type { InvokeRun } from './run';
import type { Link } from './signals';

/** How an invoke settled (see {@link settle}). */
export const SUCCESS = 0;
export const FAILURE = 1;
export const CLOSED = 2;

/** One of {@link SUCCESS}, {@link FAILURE}, {@link CLOSED}. */
export type Settlement = typeof SUCCESS | typeof FAILURE | typeof CLOSED;

// Stryker disable next-line ObjectLiteral,StringLiteral: built once when the module loads, before a mutant can be switched on at run time (see test/mutation/README.md).
const CLOSED_OUTCOME: InvokeOutcome = Object.freeze({ status: 'closed' });

// Stryker disable next-line ObjectLiteral,BooleanLiteral: built once when the module loads, before a mutant can be switched on at run time (see test/mutation/README.md).
const END: IteratorReturnResult<void> = Object.freeze({ value: undefined, done: true });

/** An error thrown while closing (a wrapper, since `undefined` can be thrown too). */
export interface ClosingFailure {
  /** The error. */
  readonly error: unknown;
}

/**
 * How many inner chains an invoke remembers as they are, until it settles
 * (MW-016). Past these, `next()` returns each chain wrapped, so that it can
 * be forgotten as soon as it ends: a handler making thousands of sequential
 * calls keeps only the open ones. The bound is well above the chains of an
 * ordinary invoke (one per Wrap handler, a few more per retry), which thus
 * pay nothing per event.
 */
const HELD_CHAINS = 32;

/**
 * Takes an inner chain `next()` just entered, with the link of its narrowed
 * signal, and returns what the handler receives: the chain itself (so
 * `next()` allocates nothing per event), or past the first HELD_CHAINS a
 * wrapper that forgets it when it ends.
 */
export function track(run: InvokeRun, generator: LayerGenerator, link: Link | undefined): LayerGenerator {
  if (run.started.length < HELD_CHAINS) {
    run.started.push(generator);
    if (link !== undefined) (run.links ??= []).push(link);
    return generator;
  }
  const chain = new ReleasingChain(generator, (run.owner ??= { forget: (ended) => void run.open?.delete(ended) }), link);
  (run.open ??= new Set()).add(chain);
  return chain;
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
export function closeOpen(run: InvokeRun, outermost: LayerGenerator | undefined): Promise<ClosingFailure | undefined> | undefined {
  if (outermost !== undefined) return closeOutermostFirst(run, outermost);
  return closeStarted(run, reportFailure, undefined);
}

/** What comes after the closing, in the same async step: given the target and the closing's failure, if any. */
export type AfterClosing<TTarget, TResult> = (target: TTarget, failure: ClosingFailure | undefined) => TResult | PromiseLike<TResult>;

/** The continuation of {@link closeOpen}: the failure itself. */
// Stryker disable next-line ArrowFunction: built once when the module loads, before a mutant can be switched on at run time (see test/mutation/README.md); "closes every abandoned inner chain on return()" (closing.test.ts) fails without it.
const reportFailure: AfterClosing<undefined, ClosingFailure | undefined> = (_target, failure) => failure;

/**
 * Marks the run settled, from which point on `next()` fails (MW-017), and
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
  run: InvokeRun,
  after: AfterClosing<TTarget, TResult>,
  target: TTarget,
): Promise<TResult> | undefined {
  run.settled = true;
  const { started, open } = run;
  // Stryker disable next-line ConditionalExpression: closing no chains answers a promise of what `after` makes of no failure, with the same outcome; the check keeps an invoke without inner chains synchronous.
  if (started.length === 0) return undefined;
  run.started = [];
  run.open = undefined;
  return closeChains(open, started, after, target);
}

async function closeOutermostFirst(run: InvokeRun, outermost: LayerGenerator): Promise<ClosingFailure | undefined> {
  let failure: ClosingFailure | undefined;
  try {
    await outermost.return(undefined);
  } catch (error) {
    failure = { error };
  }
  const closingInner = closeOpen(run, undefined);
  // Stryker disable next-line ConditionalExpression: awaiting undefined gives undefined as well; the check only spares a promise-job turn.
  return (closingInner === undefined ? undefined : await closingInner) ?? failure;
}

/** Closes the chains `next()` started, most recent first: the later ones still open, then the first ones (closing one that ended changes nothing). */
async function closeChains<TTarget, TResult>(
  open: ReadonlySet<ReleasingChain> | undefined,
  started: readonly LayerGenerator[],
  after: AfterClosing<TTarget, TResult>,
  target: TTarget,
): Promise<TResult> {
  let failure: ClosingFailure | undefined;
  if (open !== undefined) {
    const later = [...open];
    for (let index = later.length - 1; index >= 0; index--) {
      try {
        await (later[index] as ReleasingChain).return(undefined);
      } catch (error) {
        failure = { error };
      }
    }
  }
  for (let index = started.length - 1; index >= 0; index--) {
    try {
      await (started[index] as LayerGenerator).return(undefined);
    } catch (error) {
      failure = { error };
    }
  }
  return after(target, failure);
}

/** The invoke settled: the links of narrowed signals are released and the outcome reported to the observers (built only when observed); runs once. */
export function settle(run: InvokeRun, status: Settlement, value: unknown): void {
  run.settled = true;
  const links = run.links;
  if (links !== undefined) {
    run.links = undefined;
    for (const link of links) link.release();
  }
  const observation = run.observation;
  if (observation === undefined) return;
  run.observation = undefined;
  let outcome = CLOSED_OUTCOME;
  if (status === SUCCESS) outcome = Object.freeze({ status: 'success', result: value });
  else if (status === FAILURE) outcome = Object.freeze({ status: 'error', error: value });
  observation.end(outcome);
}

/**
 * Ends an invoke after `error`: closes what is open (an error thrown while
 * closing replaces the one being unwound, MW-021), then decides which error
 * the consumer sees, and settles the invoke with it.
 */
export async function failInvoke(run: InvokeRun, outermost: LayerGenerator | undefined, error: unknown): Promise<unknown> {
  const closing = closeOpen(run, outermost);
  // Stryker disable next-line ConditionalExpression: awaiting undefined gives undefined as well; the check only spares a promise-job turn.
  const failure = closing === undefined ? undefined : await closing;
  let outcome = failure === undefined ? error : failure.error;
  const signal = run.signal;
  if (
    signal !== undefined &&
    signal.aborted &&
    !(MiddlewareError.isInstance(outcome) && outcome.code === 'ERR_ABORTED' && outcome.cause === signal.reason)
  ) {
    // Abort wins over whatever the layers made of it (MW-024), even if a handler swallowed it
    // or a narrowed signal's abort (with another reason) reached the consumer first.
    outcome = messages.aborted(run.stageName, signal.reason);
  }
  settle(run, FAILURE, outcome);
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
  run: InvokeRun,
  outermost: LayerGenerator | undefined,
  rethrow: boolean,
  error: unknown,
): Promise<IteratorReturnResult<void>> {
  const closing = closeOpen(run, outermost);
  // Stryker disable next-line ConditionalExpression: awaiting undefined gives undefined as well; the check only spares a promise-job turn.
  const failure = closing === undefined ? undefined : await closing;
  settle(run, CLOSED, undefined);
  if (failure !== undefined) throw failure.error;
  if (rethrow) throw error;
  return END;
}
