/**
 * The message builders of an invoke, so that each error says what happened,
 * where (stage, phase, handler) and what to do: options, state, layers,
 * handlers, `next()`, instrumentations, schemas and abort. The codes and
 * their rules are in `codes.ts`.
 *
 * @packageDocumentation
 */
import { describeValue } from '../util/describe-value';
import { codedError, type ErrorSite } from './errors';
import type { MiddlewareError } from './errors';

function where(culprit: ErrorSite): string {
  return culprit.phase === 'terminal'
    ? `the terminal of stage "${culprit.stage}"`
    : `${culprit.phase} handler "${culprit.handler}" of stage "${culprit.stage}"`;
}

/** The options of an invoke are of the wrong shape. */
export function invalidInvokeOptions(stage: string, problem: string): MiddlewareError {
  return codedError('ERR_INVALID_OPTIONS', { stage }, `Invoke of stage "${stage}": ${problem}.`);
}

/** A per-invoke registration targets another stage than the one invoked. */
export function useForAnotherStage(culprit: ErrorSite, targetStage: string): MiddlewareError {
  return codedError(
    'ERR_INVALID_OPTIONS',
    culprit,
    `invoke options.use: handler "${culprit.handler}" targets stage "${targetStage}", but this invoke runs stage "${culprit.stage}". Pass per-invoke handlers only for the stage being invoked.`,
  );
}

/** The state binding returned a value immer cannot draft. */
export function stateNotDraftable(stage: string, value: unknown): MiddlewareError {
  return codedError(
    'ERR_INVALID_STATE',
    { stage, phase: 'terminal' },
    `Stage "${stage}": state.get() returned ${describeValue(value)}, which immer cannot draft. Keep the state in a plain object, array, Map or Set.`,
  );
}

/** The state binding returned a value with a reference cycle; `path` is where it closes. */
export function stateCyclic(stage: string, path: string): MiddlewareError {
  return codedError(
    'ERR_INVALID_STATE',
    { stage, phase: 'terminal' },
    `Stage "${stage}": state.get() returned a value with a reference cycle: the value at ${path} is one that contains it. A cyclic state cannot be written back consistently (a change would show through one path and not the other); keep each object in the state at one place, and link by id instead.`,
  );
}

/** A Wrap handler or terminal returned something that is not an async iterable. */
export function notAsyncIterable(culprit: ErrorSite, produced: unknown): MiddlewareError {
  const got = describeValue(produced);
  // A terminal has no next(): it yields its own events.
  const forward = culprit.phase === 'terminal' ? 'yield its events' : 'forward the inner events with `yield* next()`';
  let hint = `Write it as \`async function*\` and ${forward}.`;
  try {
    if (typeof (produced as { then?: unknown }).then === 'function') {
      hint = `It looks like a plain async function: write it as \`async function*\` and ${forward}.`;
    } else if (Symbol.iterator in (produced as object)) {
      hint = 'A synchronous iterable (an array or a `function*` generator) cannot stream: write it as `async function*`.';
    }
  } catch {
    // Null and undefined (reading `then` throws), other primitives (`in` throws) and values that cannot be inspected get the general hint.
  }
  return codedError('ERR_INVALID_HANDLER', culprit, `${capitalise(where(culprit))} returned ${got}, not an async iterable. ${hint}`);
}

/** A handler given to `add` or a terminal given to `invoke` is not a function. */
export function notAFunction(culprit: ErrorSite, value: unknown): MiddlewareError {
  return codedError('ERR_INVALID_HANDLER', culprit, `${capitalise(where(culprit))} must be a function, got ${describeValue(value)}.`);
}

/** An Input handler returned undefined or null. */
export function inputContract(culprit: ErrorSite, produced: unknown): MiddlewareError {
  return codedError(
    'ERR_INPUT_CONTRACT',
    culprit,
    `${capitalise(where(culprit))} returned ${describeValue(produced)}. An Input handler must return the context (the one it received, or a new one). Did you forget to \`return context\`?`,
  );
}

/** An Output handler returned something that is not a MiddlewareResult. */
export function outputContract(culprit: ErrorSite, produced: unknown): MiddlewareError {
  return codedError(
    'ERR_OUTPUT_CONTRACT',
    culprit,
    `${capitalise(where(culprit))} returned ${describeValue(produced)}, not a MiddlewareResult. Return the result it received, or \`result.replace(value)\` / \`result.update(recipe)\`.`,
  );
}

/** The chain yielded nothing, or its last event is not a result. */
export function noResult(
  stage: string,
  lastEvent: { readonly present: boolean; readonly value?: unknown },
  outermost: string | undefined,
): MiddlewareError {
  const detail = lastEvent.present
    ? `its last event (${describeValue(lastEvent.value)}) fails the stage's isResult guard`
    : 'it yielded no event at all';
  // The outermost layer is where the missing result surfaced; the culprit may sit further in.
  const layer = outermost === undefined ? 'the terminal' : `Wrap handler "${outermost}"`;
  return codedError(
    'ERR_NO_RESULT',
    { stage },
    `The chain of stage "${stage}" did not yield a result event: ${detail} (outermost layer: ${layer}). Every Wrap handler must forward the events of next() (\`yield* next()\`) or yield a result of its own, and the terminal must end with a result event.`,
  );
}

/** A layer yielded undefined. */
export function invalidEvent(stage: string): MiddlewareError {
  return codedError(
    'ERR_INVALID_EVENT',
    { stage },
    `A layer of stage "${stage}" yielded undefined, which is never a valid event. Look for a bare \`yield\` or a \`yield\` of a missing value in the Wrap handlers and the terminal.`,
  );
}

/** The invoke was aborted. */
export function aborted(stage: string, reason: unknown): MiddlewareError {
  return codedError(
    'ERR_ABORTED',
    { stage },
    `The invoke of stage "${stage}" was aborted${reasonText(reason)}. The abort reason is the cause.`,
    reason,
  );
}

/** `next()` was called after the invoke settled. */
export function nextAfterSettle(culprit: ErrorSite): MiddlewareError {
  return codedError(
    'ERR_NEXT_AFTER_SETTLE',
    culprit,
    `${capitalise(where(culprit))} called next() after the invoke had settled. Call next() only while the handler runs; do not keep it for later (in a timer or a stored callback).`,
  );
}

/** A Wrap handler called next() with options of the wrong shape. */
export function invalidNextOptions(culprit: ErrorSite, problem: string): MiddlewareError {
  return codedError(
    'ERR_INVALID_OPTIONS',
    culprit,
    `${capitalise(where(culprit))} called next() with ${problem}. Pass next(context, { signal }) with an AbortSignal, or leave the options out.`,
  );
}

/** An instrumentation's `invoke()` or `layer()` returned something the invoke cannot use. */
export function invalidInstrumentation(
  stage: string,
  instrumentation: string,
  hook: 'invoke' | 'layer',
  produced: unknown,
  layer?: string,
): MiddlewareError {
  const expected =
    hook === 'invoke'
      ? 'undefined or an observer object (whose hooks, when present, are functions)'
      : 'an async generator (next, return and Symbol.asyncIterator)';
  const where = layer === undefined ? '' : ` for ${layer}`;
  return codedError(
    'ERR_INVALID_HANDLER',
    { stage, handler: instrumentation },
    `Instrumentation "${instrumentation}" returned ${describeValue(produced)} from ${hook}()${where} in an invoke of stage "${stage}", but it must return ${expected}. ${hook === 'layer' ? 'Wrap the events in an `async function*` that does `yield* events`.' : 'Return an object with the hooks it needs, or undefined to skip the invoke.'}`,
  );
}

/** A Wrap handler broke its next() policy. */
export function nextPolicy(culprit: ErrorSite, policy: string, calls: number): MiddlewareError {
  const expected = policy === 'once' ? 'exactly once' : 'at most once';
  return codedError(
    'ERR_NEXT_POLICY',
    culprit,
    `${capitalise(where(culprit))} is registered with next: '${policy}' and must call next() ${expected}, but called it ${calls} time${calls === 1 ? '' : 's'}. Change the handler, or register it with next: 'many'.`,
  );
}

/** A schema rejected the context or result. */
export function schemaFailed(stage: string, which: 'context' | 'result', cause: unknown): MiddlewareError {
  return codedError(
    which === 'context' ? 'ERR_CONTEXT_INVALID' : 'ERR_RESULT_INVALID',
    { stage, phase: which === 'context' ? 'input' : 'output' },
    which === 'context'
      ? `The context of stage "${stage}" failed the stage's context schema after the Input phase. The schema's issues are in the cause; fix the caller's context or the Input handler that produced it.`
      : `The result of stage "${stage}" failed the stage's result schema after the Output phase. The schema's issues are in the cause; fix the terminal or the Output handler that produced it.`,
    cause,
  );
}

/** The reason's text for the message; never throws (a throwing `message` getter, a proxy), so the abort error is always built. */
function reasonText(reason: unknown): string {
  if (typeof reason === 'string') return `: ${reason}`;
  try {
    // Read from any object, not only an `Error` of this realm: a DOMException or an error of another realm has one too.
    const text = (reason as { message?: unknown }).message;
    return typeof text === 'string' ? `: ${text}` : '';
  } catch {
    // Undefined, null, or a throwing `message` getter: said nothing about; the reason itself stays the cause.
    return '';
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
