/**
 * Reference interpreter of an invoke, written from the rules (the core
 * behaviour list and SPEC section 3) with no optimisation: one
 * `async function*` for the whole invoke, plain recursion for the onion.
 * The property test runs the same generated handlers through this and
 * through the library and requires the same events, result, error and trace.
 *
 * Rules modelled, in the order they apply:
 * 1. abort checked before start; Input handlers in order (each result awaited
 *    only when thenable; undefined/null is ERR_INPUT_CONTRACT), abort checked
 *    after each; context schema; state read once and deep-frozen (a cycle in
 *    its unfrozen part is ERR_INVALID_STATE);
 * 2. the onion: layer i calls next() to enter layer i+1 afresh; the last layer
 *    is the terminal; non-iterables are ERR_INVALID_HANDLER; `next` policies;
 * 3. events of the outermost layer: abort checked before and after each pull; undefined is
 *    ERR_INVALID_EVENT; hold mode (Output handlers, result schema or state)
 *    holds the last candidate until the next event or the end;
 * 4. at the end: inner chains left open are closed (most recent first), then
 *    ERR_NO_RESULT checks, Output handlers innermost first (abort after each),
 *    result schema, abort check, state writeback, final event;
 * 5. on error: the open outermost layer is closed, then inner chains left
 *    open; an error thrown while closing replaces the one being unwound; an
 *    aborted signal turns any outcome into ERR_ABORTED (cause = reason);
 * 6. on close by the consumer: the same closing, no writeback.
 */
import { createDraft, finishDraft, freeze, isDraftable } from 'immer';
import { MiddlewareResult, type StateBinding } from '../../src/core/index';
import type { NextPolicy } from '../../src/core/types';
import { ReferenceEngineError, type ReferenceChain } from './reference-registry';

type Events = AsyncGenerator<unknown, void, undefined>;

/** What the reference needs to know about the stage. */
export interface ReferenceStage {
  readonly isResult: ((event: unknown) => boolean) | undefined;
  readonly contextSchema: SchemaLike | undefined;
  readonly resultSchema: SchemaLike | undefined;
  /** Passed through to handlers as `run.stage`. */
  readonly token: unknown;
}

interface SchemaLike {
  safeParse(value: unknown): { success: boolean; data?: unknown; error?: unknown };
  safeParseAsync?(value: unknown): Promise<{ success: boolean; data?: unknown; error?: unknown }>;
}

/** Options of a reference invoke. */
export interface ReferenceOptions {
  readonly signal?: AbortSignal | undefined;
  readonly state?: StateBinding<unknown> | undefined;
}

type Terminal = (context: unknown, run: { stage: unknown; signal: AbortSignal; state: unknown }) => unknown;

const thenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';

function iterate(produced: unknown): Events {
  if (typeof produced === 'object' && produced !== null && Symbol.asyncIterator in produced) {
    const candidate = produced as Partial<Events>;
    if (typeof candidate.next === 'function' && typeof candidate.return === 'function') return candidate as Events;
    return (async function* adapted(): Events {
      yield* produced as AsyncIterable<unknown>;
    })();
  }
  throw new ReferenceEngineError('ERR_INVALID_HANDLER');
}

async function check(schema: SchemaLike, value: unknown, code: string): Promise<unknown> {
  const outcome = schema.safeParseAsync ? await schema.safeParseAsync(value) : schema.safeParse(value);
  if (!outcome.success) throw new ReferenceEngineError(code, outcome.error);
  return outcome.data;
}

/** Runs one invoke by the rules. */
export async function* referenceInvoke(
  stage: ReferenceStage,
  chain: ReferenceChain,
  initialContext: unknown,
  terminal: Terminal,
  options: ReferenceOptions,
): Events {
  const { signal, state } = options;
  const hold = chain.output.length > 0 || stage.resultSchema !== undefined || state !== undefined;
  const isAborted = (): boolean => signal?.aborted === true;
  const abortError = (): ReferenceEngineError => new ReferenceEngineError('ERR_ABORTED', signal?.reason);
  const started: Events[] = [];
  let settled = false;
  let outer: Events | undefined;
  let finished = false;
  let snapshot: unknown;
  let lastState: { value: unknown } | undefined;

  const closeStarted = async (): Promise<void> => {
    settled = true;
    let failure: { error: unknown } | undefined;
    while (started.length > 0) {
      try {
        await (started.pop() as Events).return(undefined);
      } catch (error) {
        failure = { error };
      }
    }
    if (failure !== undefined) throw failure.error;
  };

  const enter = (index: number, context: unknown, layerSignal: AbortSignal): Events => {
    if (index === chain.wrap.length) {
      if (state === undefined) return iterate(terminal(context, { stage: stage.token, signal: layerSignal, state: undefined }));
      const draft = createDraft(snapshot as object);
      const events = iterate(terminal(context, { stage: stage.token, signal: layerSignal, state: draft }));
      return (async function* recorded() {
        yield* events;
        lastState = { value: finishDraft(draft) };
      })();
    }
    const entry = chain.wrap[index] as (typeof chain.wrap)[number];
    let calls = 0;
    const policy: NextPolicy = entry.next;
    const next = (nextContext?: unknown, nextOptions?: { signal?: AbortSignal }): Events => {
      if (settled) throw new ReferenceEngineError('ERR_NEXT_AFTER_SETTLE');
      calls++;
      if (policy !== 'many' && calls > 1) throw new ReferenceEngineError('ERR_NEXT_POLICY');
      const innerSignal = nextOptions?.signal === undefined ? layerSignal : AbortSignal.any([layerSignal, nextOptions.signal]);
      if (innerSignal.aborted) throw new ReferenceEngineError('ERR_ABORTED', innerSignal.reason);
      const inner = enter(index + 1, nextContext === undefined ? context : nextContext, innerSignal);
      started.push(inner);
      return inner;
    };
    const events = iterate(
      (entry.handler as (...args: unknown[]) => unknown)(context, next, { stage: stage.token, signal: layerSignal, handler: entry.name }),
    );
    if (policy !== 'once') return events;
    return (async function* exactlyOnce() {
      yield* events;
      if (calls === 0) throw new ReferenceEngineError('ERR_NEXT_POLICY');
    })();
  };

  let outerOpen = false;
  try {
    if (isAborted()) throw abortError();
    let context = initialContext;
    for (const entry of chain.input) {
      let produced = (entry.handler as (context: unknown) => unknown)(context);
      if (thenable(produced)) produced = await produced;
      if (produced === undefined || produced === null) throw new ReferenceEngineError('ERR_INPUT_CONTRACT');
      context = produced;
      if (isAborted()) throw abortError();
    }
    if (stage.contextSchema !== undefined) context = await check(stage.contextSchema, context, 'ERR_CONTEXT_INVALID');
    if (state !== undefined) {
      const value = state.get();
      if (!isDraftable(value) || cyclic(value, new Set())) throw new ReferenceEngineError('ERR_INVALID_STATE');
      snapshot = freeze(value, true);
    }
    outer = enter(0, context, signal ?? new AbortController().signal);
    outerOpen = true;

    let held: { value: unknown } | undefined;
    let last: { value: unknown } | undefined;
    for (;;) {
      if (isAborted()) throw abortError();
      let pulled: IteratorResult<unknown, void>;
      try {
        pulled = await outer.next();
      } catch (error) {
        outerOpen = false;
        throw error;
      }
      if (isAborted()) throw abortError();
      if (pulled.done === true) {
        outerOpen = false;
        break;
      }
      const event = pulled.value;
      if (event === undefined) throw new ReferenceEngineError('ERR_INVALID_EVENT');
      if (!hold) {
        last = { value: event };
        yield event;
        continue;
      }
      const candidate = stage.isResult === undefined || stage.isResult(event);
      last = { value: event };
      if (!candidate) {
        if (held !== undefined) {
          const release = held.value;
          held = undefined;
          yield release;
        }
        yield event;
        continue;
      }
      if (held !== undefined) yield held.value;
      held = { value: event };
    }

    await closeStarted();
    if (last === undefined) throw new ReferenceEngineError('ERR_NO_RESULT');
    if (!hold) {
      if (stage.isResult !== undefined && !stage.isResult(last.value)) throw new ReferenceEngineError('ERR_NO_RESULT');
      finished = true;
      return;
    }
    if (held === undefined) throw new ReferenceEngineError('ERR_NO_RESULT');
    let result = new MiddlewareResult<unknown>(held.value);
    for (let position = chain.output.length - 1; position >= 0; position--) {
      const entry = chain.output[position] as (typeof chain.output)[number];
      let produced = (entry.handler as (result: unknown) => unknown)(result);
      if (thenable(produced)) produced = await produced;
      if (!(produced instanceof MiddlewareResult)) throw new ReferenceEngineError('ERR_OUTPUT_CONTRACT');
      result = produced;
      if (isAborted()) throw abortError();
    }
    let value = result.value;
    if (stage.resultSchema !== undefined) value = await check(stage.resultSchema, value, 'ERR_RESULT_INVALID');
    if (isAborted()) throw abortError();
    if (state !== undefined && lastState !== undefined) state.set(lastState.value);
    finished = true;
    yield value;
  } catch (error) {
    finished = true;
    let outcome = error;
    if (outerOpen) {
      outerOpen = false;
      try {
        await (outer as Events).return(undefined);
      } catch (closeError) {
        outcome = closeError;
      }
    }
    try {
      await closeStarted();
    } catch (closeError) {
      outcome = closeError;
    }
    if (isAborted() && !(outcome instanceof ReferenceEngineError && outcome.code === 'ERR_ABORTED')) outcome = abortError();
    throw outcome;
  } finally {
    if (!finished) {
      // The consumer closed the invoke while it was suspended at a `yield`.
      let failure: { error: unknown } | undefined;
      if (outerOpen) {
        outerOpen = false;
        try {
          await (outer as Events).return(undefined);
        } catch (error) {
          failure = { error };
        }
      }
      try {
        await closeStarted();
      } catch (error) {
        failure = { error };
      }
      // eslint-disable-next-line no-unsafe-finally -- the reference model rethrows a close's failure as the library does
      if (failure !== undefined) throw failure.error;
    }
  }
}

/** Whether the unfrozen, draftable part of `value` contains an object that contains itself (MW-027). */
function cyclic(value: unknown, ancestors: Set<unknown>): boolean {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value) || !isDraftable(value)) return false;
  if (ancestors.has(value)) return true;
  ancestors.add(value);
  const children = value instanceof Map || value instanceof Set ? [...value.values()] : Object.values(value);
  const found = children.some((child) => cyclic(child, ancestors));
  ancestors.delete(value);
  return found;
}
