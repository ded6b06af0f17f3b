/**
 * What `runStage` records of each handler, and the wrappers that record it:
 * they call the handler as it is and note its calls, what it received, its
 * `next()` calls and whether its `finally` ran.
 *
 * @packageDocumentation
 */

/** What happened to one handler during {@link runStage}. */
export interface HandlerCalls {
  /** The handler's phase. */
  readonly phase: 'input' | 'wrap' | 'output';
  /** How many times it was called (Wrap: activations). */
  activations: number;
  /** What each call received: the context (Input, Wrap) or the result value (Output). */
  readonly received: unknown[];
  /** How many times it called `next()` (Wrap handlers), over all activations. */
  nextCalls: number;
  /** The context of each `next()` call, as the inner chain received it (`undefined` passes the handler's own context on). */
  readonly nextContexts: unknown[];
  /** Whether every activation has finished: its `finally` ran (Wrap) or it returned or threw (Input, Output). False when never called. */
  finallyRan: boolean;
}

/** A handler with its types erased, as the observing wrappers register it. */
export type Erased = (...args: never[]) => unknown;

/** Wraps an Input or Output handler to count its calls and record what it received. */
export function observeCall(original: (...args: unknown[]) => unknown, record: HandlerCalls, isOutput: boolean): Erased {
  let settled = 0;
  const done = (): void => {
    settled++;
    record.finallyRan = settled === record.activations;
  };
  return function observed(value: unknown): unknown {
    record.activations++;
    record.finallyRan = false;
    record.received.push(isOutput ? (value as { value: unknown }).value : value);
    let produced: unknown;
    try {
      produced = original(value);
    } catch (error) {
      done();
      throw error;
    }
    if (produced !== null && typeof produced === 'object' && typeof (produced as { then?: unknown }).then === 'function') {
      return Promise.resolve(produced).finally(done);
    }
    done();
    return produced;
  };
}

/** Wraps a Wrap handler to count activations and `next()` calls and to see its `finally` run. */
export function observeWrap(original: (...args: unknown[]) => unknown, record: HandlerCalls): Erased {
  let settled = 0;
  return function observed(context: unknown, next: (context?: unknown, options?: unknown) => unknown, run: unknown): unknown {
    record.activations++;
    record.finallyRan = false;
    record.received.push(context);
    const countingNext = (nextContext?: unknown, nextOptions?: unknown): unknown => {
      record.nextCalls++;
      record.nextContexts.push(nextContext);
      return nextOptions === undefined ? next(nextContext) : next(nextContext, nextOptions);
    };
    const produced = original(context, countingNext, run);
    // Anything but an async iterable goes back as it is, so the registry reports it.
    if (
      produced === null ||
      typeof produced !== 'object' ||
      typeof (produced as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function'
    )
      return produced;
    return (async function* finallyProbe() {
      try {
        yield* produced as AsyncIterable<unknown>;
      } finally {
        settled++;
        record.finallyRan = settled === record.activations;
      }
    })();
  };
}
