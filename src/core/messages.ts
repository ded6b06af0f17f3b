/**
 * The message builders of the core, so that each error says what happened,
 * where (stage, phase, handler) and what to do. Registration first (stages,
 * `add`, bundles, contributions, ordering), then the invoke (options, state,
 * layers, handlers, `next()`, instrumentations, schemas and abort). Each
 * builder makes its error with `codedError`; the codes and their rules are in
 * the table of `errors.ts`. The warnings of resolution are in `warnings.ts`.
 *
 * @packageDocumentation
 */
import { describeValue } from '../util/describe-value';
import { codedError, type ErrorSite, type MiddlewareError } from './errors';
import type { Phase } from './types';

/** `createStage` was given a bad name or bad options. */
export function invalidStage(name: string, problem: string): MiddlewareError {
  return codedError('ERR_INVALID_STAGE', { stage: name }, `createStage("${name}"): ${problem}.`);
}

/** A call that takes a stage or phase token got something else. */
export function unknownTarget(call: string, target: unknown): MiddlewareError {
  let looksLike = '';
  try {
    if ('phase' in (target as object) || 'Input' in (target as object)) {
      looksLike =
        ' It looks like a stage or phase token but was not created by createStage (a copy, a spread or a hand-made object is not the same stage).';
    }
  } catch {
    // Null, a primitive (`in` throws on them) or a proxy whose traps throw gets the plain message.
  }
  return codedError(
    'ERR_UNKNOWN_PHASE',
    { phase: 'register' },
    `${call} expects a stage from createStage() or one of its phase tokens (Stage.Input, Stage.Wrap, Stage.Output), got ${describeValue(target)}.${looksLike}`,
  );
}

/** A call that runs or describes a stage got one of its phase tokens. */
export function phaseTokenNotStage(call: string, stage: string, phase: Phase): MiddlewareError {
  return codedError(
    'ERR_UNKNOWN_PHASE',
    { stage, phase: 'register' },
    `${call} expects a stage from createStage(), got its ${phase} phase token. Pass the stage itself (the token's \`stage\`).`,
  );
}

/** A registration's options are of the wrong shape. */
export function invalidRegistration(call: string, site: ErrorSite, problem: string): MiddlewareError {
  return codedError('ERR_INVALID_OPTIONS', site, `${call}: ${problem} (${where(site)}).`);
}

/** An id registered twice without `replace: true`, or twice in one per-invoke list (`sibling`). */
export function duplicateId(site: ErrorSite, id: string | undefined, call: string, sibling = false): MiddlewareError {
  // `replace` only reaches ids of enclosing scopes, so suggesting it for two
  // entries of one per-invoke list would send the user round in circles.
  const advice = sibling
    ? 'Ids must be unique within one use list ({ replace: true } only replaces an id registered in an enclosing registry): drop one entry or choose another id.'
    : 'Pass { replace: true } to put this handler in its place, or choose another id.';
  return codedError('ERR_DUPLICATE_ID', site, `${call}: the id "${id}" is already registered, so ${where(site)} cannot take it. ${advice}`);
}

/** `replace: true` without an id, by name, where several handlers of one stage and phase have that name. */
export function ambiguousName(site: ErrorSite, count: number, call: string): MiddlewareError {
  return codedError(
    'ERR_AMBIGUOUS_NAME',
    site,
    `${call}: ${count} ${site.phase} handlers of stage "${site.stage}" are named "${site.handler}", so { replace: true } without an id cannot tell which one to replace. Give the one to replace an id and replace it by id.`,
  );
}

/** `createContributionKey` got a name or options it cannot use. */
export function invalidContributionKey(problem: string): MiddlewareError {
  return codedError('ERR_INVALID_OPTIONS', { phase: 'register' }, `createContributionKey(name, options?): ${problem}.`);
}

/** `provide` or `contributions` got something that is not a contribution key. */
export function notAContributionKey(call: string, value: unknown): MiddlewareError {
  return codedError(
    'ERR_INVALID_OPTIONS',
    { phase: 'register' },
    `${call} expects a key from createContributionKey(), got ${describeValue(value)}.`,
  );
}

/** A key's `identify` gave something that is not an id for a value a bundle provided. */
export function invalidContributionId(
  call: string,
  key: { readonly name: string; readonly stage: string | undefined },
  id: unknown,
  value: unknown,
): MiddlewareError {
  return codedError(
    'ERR_INVALID_OPTIONS',
    { stage: key.stage, phase: 'register' },
    `${call}: the identify function of key "${key.name}" gave ${describeValue(id)} for ${describeValue(value)}, not a non-empty string. Provide a value the key can name.`,
  );
}

/**
 * A value provided twice under one id in one chain of scopes.
 *
 * @param inAncestor - Whether the one provided first is in an ancestor of the registry the other was provided to.
 */
export function duplicateContribution(
  key: { readonly name: string; readonly stage: string | undefined },
  id: string,
  later: string,
  earlier: string,
  inAncestor: boolean,
): MiddlewareError {
  return codedError(
    'ERR_DUPLICATE_ID',
    { stage: key.stage, phase: 'register' },
    `Bundle "${later}" provides "${id}" under key "${key.name}", and bundle "${earlier}" already provides a value with that id in ${inAncestor ? 'a parent registry' : 'the same registry'}. Each value of a key needs its own id within one chain of scopes: rename one, or use only one of the bundles.`,
  );
}

/** `registry.use` got something that is not a bundle. */
export function notABundle(value: unknown): MiddlewareError {
  return codedError(
    'ERR_INVALID_HANDLER',
    { phase: 'register' },
    `registry.use expects a bundle { name: string, setup(registrar) }, got ${describeValue(value)}.`,
  );
}

/** `registry.instrument` got something that is not an instrumentation. */
export function notAnInstrumentation(value: unknown): MiddlewareError {
  return codedError(
    'ERR_INVALID_HANDLER',
    { phase: 'register' },
    `registry.instrument expects { name, invoke(info) }, got ${describeValue(value)}.`,
  );
}

/** Ordering constraints of one stage and phase form a cycle; `cycle` names it, each before the next, its first again at the end. */
export function orderCycle(stage: string, phase: Phase, handler: string, cycle: readonly string[]): MiddlewareError {
  return codedError(
    'ERR_ORDER_CYCLE',
    { stage, phase, handler },
    `The ordering constraints of the ${phase} handlers of stage "${stage}" form a cycle: ${cycle.join(' -> ')} (each must run before the next). Remove one of these before/after constraints.`,
  );
}

/** A constraint names a handler of another scope level, which the nesting places the other way round. */
export function orderConflict(site: ErrorSite, id: string, outside: boolean, inOuterScope: boolean): MiddlewareError {
  return codedError(
    'ERR_ORDER_CONFLICT',
    site,
    `The ${where(site)} must run ${outside ? 'before' : 'after'} "${id}", but "${id}" belongs to ${inOuterScope ? 'an outer' : 'an inner'} scope, and handlers of an outer scope (a parent registry) always run outside those of an inner one (a child registry, then per-invoke handlers). Register both in the same scope.`,
  );
}

function where(site: ErrorSite): string {
  return site.phase === 'terminal'
    ? `the terminal of stage "${site.stage}"`
    : `${site.phase} handler "${site.handler}" of stage "${site.stage}"`;
}

/** The options of an invoke are of the wrong shape. */
export function invalidInvokeOptions(stage: string, problem: string): MiddlewareError {
  return codedError('ERR_INVALID_OPTIONS', { stage }, `Invoke of stage "${stage}": ${problem}.`);
}

/** A per-invoke registration targets another stage than the one invoked. */
export function useForAnotherStage(site: ErrorSite, targetStage: string): MiddlewareError {
  return codedError(
    'ERR_INVALID_OPTIONS',
    site,
    `invoke options.use: handler "${site.handler}" targets stage "${targetStage}", but this invoke runs stage "${site.stage}". Pass per-invoke handlers only for the stage being invoked.`,
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
export function notAsyncIterable(site: ErrorSite, produced: unknown): MiddlewareError {
  const got = describeValue(produced);
  // A terminal has no next(): it yields its own events.
  const forward = site.phase === 'terminal' ? 'yield its events' : 'forward the inner events with `yield* next()`';
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
  return codedError('ERR_INVALID_HANDLER', site, `${subject(site)} returned ${got}, not an async iterable. ${hint}`);
}

/** A handler given to `add` or a terminal given to `invoke` is not a function. */
export function notAFunction(site: ErrorSite, value: unknown): MiddlewareError {
  return codedError('ERR_INVALID_HANDLER', site, `${subject(site)} must be a function, got ${describeValue(value)}.`);
}

/** An Input handler returned undefined or null. */
export function inputContract(site: ErrorSite, produced: unknown): MiddlewareError {
  return codedError(
    'ERR_INPUT_CONTRACT',
    site,
    `${subject(site)} returned ${describeValue(produced)}. An Input handler must return the context (the one it received, or a new one). Did you forget to \`return context\`?`,
  );
}

/** An Output handler returned something that is not a MiddlewareResult. */
export function outputContract(site: ErrorSite, produced: unknown): MiddlewareError {
  return codedError(
    'ERR_OUTPUT_CONTRACT',
    site,
    `${subject(site)} returned ${describeValue(produced)}, not a MiddlewareResult. Return the result it received, or \`result.replace(value)\` / \`result.update(recipe)\`.`,
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
  // The outermost layer is where the missing result surfaced; the layer at fault may sit further in.
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
export function nextAfterSettle(site: ErrorSite): MiddlewareError {
  return codedError(
    'ERR_NEXT_AFTER_SETTLE',
    site,
    `${subject(site)} called next() after the invoke had settled. Call next() only while the handler runs; do not keep it for later (in a timer or a stored callback).`,
  );
}

/** A Wrap handler called next() with options of the wrong shape. */
export function invalidNextOptions(site: ErrorSite, problem: string): MiddlewareError {
  return codedError(
    'ERR_INVALID_OPTIONS',
    site,
    `${subject(site)} called next() with ${problem}. Pass next(context, { signal }) with an AbortSignal, or leave the options out.`,
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
export function nextPolicy(site: ErrorSite, policy: string, calls: number): MiddlewareError {
  const expected = policy === 'once' ? 'exactly once' : 'at most once';
  return codedError(
    'ERR_NEXT_POLICY',
    site,
    `${subject(site)} is registered with next: '${policy}' and must call next() ${expected}, but called it ${calls} time${calls === 1 ? '' : 's'}. Change the handler, or register it with next: 'many'.`,
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

/** {@link where} at the start of a sentence. */
function subject(site: ErrorSite): string {
  const text = where(site);
  return text.charAt(0).toUpperCase() + text.slice(1);
}
