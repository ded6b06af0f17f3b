/**
 * The message builders of registration, so that each error says what
 * happened, where and what to do: stages, `add`, bundles, contributions and
 * ordering (the warning of an unknown id included). The codes and their
 * rules are in `codes.ts`.
 *
 * @packageDocumentation
 */
import type { ChainEntry } from './chain';
import type { MiddlewareWarning } from './resolve';
import type { Phase } from './types';
import { describeValue } from '../util/describe-value';
import { codedError, type ErrorSite } from './errors';
import type { MiddlewareError } from './errors';

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
export function invalidRegistration(call: string, culprit: ErrorSite, problem: string): MiddlewareError {
  return codedError(
    'ERR_INVALID_OPTIONS',
    culprit,
    `${call}: ${problem} (${culprit.phase} handler "${culprit.handler}" of stage "${culprit.stage}").`,
  );
}

/** An id registered twice without `replace: true`, or twice in one per-invoke list (`sibling`). */
export function duplicateId(culprit: ErrorSite, id: string | undefined, call: string, sibling = false): MiddlewareError {
  // `replace` only reaches ids of enclosing scopes, so suggesting it for two
  // entries of one per-invoke list would send the user round in circles.
  const advice = sibling
    ? 'Ids must be unique within one use list ({ replace: true } only replaces an id registered in an enclosing registry): drop one entry or choose another id.'
    : 'Pass { replace: true } to put this handler in its place, or choose another id.';
  return codedError(
    'ERR_DUPLICATE_ID',
    culprit,
    `${call}: the id "${id}" is already registered, so ${culprit.phase} handler "${culprit.handler}" of stage "${culprit.stage}" cannot take it. ${advice}`,
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
export function orderConflict(culprit: ErrorSite, id: string, outside: boolean, inOuterScope: boolean): MiddlewareError {
  return codedError(
    'ERR_ORDER_CONFLICT',
    culprit,
    `The ${culprit.phase} handler "${culprit.handler}" of stage "${culprit.stage}" must run ${outside ? 'before' : 'after'} "${id}", but "${id}" belongs to ${inOuterScope ? 'an outer' : 'an inner'} scope, and handlers of an outer scope (a parent registry) always run outside those of an inner one (a child registry, then per-invoke handlers). Register both in the same scope.`,
  );
}

/** The warning of a constraint naming an id that no handler has. */
export function unknownId(culprit: ErrorSite & { readonly phase: Phase }, id: string, outside: boolean): MiddlewareWarning {
  return Object.freeze({
    code: 'WARN_UNKNOWN_ID',
    stage: culprit.stage,
    phase: culprit.phase,
    handler: culprit.handler,
    id,
    message: `The ${culprit.phase} handler "${culprit.handler}" of stage "${culprit.stage}" must run ${outside ? 'before' : 'after'} "${id}", but no handler has that id; the constraint is ignored. Check the id, or register that handler.`,
  });
}

/** Where a chain entry came from and where it runs, for {@link duplicateHandler}: `"retry" (registry.add, position 1)`. */
function placeOf(entry: ChainEntry): string {
  let how = 'registry.add';
  if (entry.source === 'invoke') how = "the invoke's use option";
  else if (entry.bundle !== undefined) how = `bundle "${entry.bundle}"`;
  if (entry.depth > 1) how += ` of an ancestor registry (${entry.depth} levels up)`;
  else if (entry.depth === 1) how += ' of the parent registry';
  return `"${entry.name}" (${how}, position ${entry.position + 1})`;
}

/** The warning of one handler function registered twice on a stage and phase, neither time with an id. */
export function duplicateHandler(stage: string, first: ChainEntry, second: ChainEntry): MiddlewareWarning {
  const places = Object.freeze([placeOf(first), placeOf(second)] as const);
  return Object.freeze({
    code: 'WARN_DUPLICATE_HANDLER',
    stage,
    phase: first.phase,
    handler: first.name,
    places,
    message: `The same ${first.phase} handler function of stage "${stage}" is registered twice, as ${places[0]} and as ${places[1]}, and runs at both places (a retry registered twice retries its own retries). Register it once; if both are meant, give each registration an id.`,
  });
}
