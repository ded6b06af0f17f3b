/**
 * Registrations: checking what `add`, `registrar.add` and
 * `InvokeOptions.use` were given (the target, the handler, the options) and
 * storing it with what resolution needs, the name a handler goes by, the
 * clock that stamps every registration and every change, and
 * {@link registration}, which builds one per-invoke registration with its
 * types inferred.
 *
 * @packageDocumentation
 */
import type { ErrorSite } from './errors';
import { invalidRegistration, notAFunction, phaseTokenNotStage, unknownTarget } from './messages';
import type { Orderable } from './order';
import { isStage } from './stage';
import { brandOf } from '../util/brand';
import { describeValue } from '../util/describe-value';
import type { AddOptions, AnyStage, HandlerOf, NextPolicy, Phase, Registration, Target } from './types';
import { isObject } from '../util/is-object';

/**
 * Builds one per-invoke registration for `InvokeOptions.use`, with the
 * handler's types inferred from the target (a bare `[target, handler]` tuple
 * inside an array cannot infer them).
 *
 * @example
 * ```ts
 * await registry.run(ModelStage, context, callModel, {
 *   use: [registration(ModelStage.Wrap, async function* audit(context, next) { yield* next(); })],
 * });
 * ```
 */
export function registration<TTarget extends Target>(target: TTarget, handler: HandlerOf<TTarget>, options?: AddOptions): Registration {
  // The tuple is checked again when the invoke resolves it, like any registration.
  return Object.freeze(options === undefined ? [target, handler] : [target, handler, options]) as unknown as Registration;
}

/**
 * One stored registration: the handler with everything resolution needs.
 * Created by `add`, `registrar.add` (bundles) and `InvokeOptions.use`.
 */
export interface StoredRegistration extends Orderable {
  /** The stage it belongs to. */
  readonly stage: AnyStage;
  /** Its phase. */
  readonly phase: Phase;
  /** The handler, type-erased. */
  readonly handler: (...args: never[]) => unknown;
  /** `next()` policy. */
  readonly next: NextPolicy;
  /** Whether it was added with `replace: true`. */
  readonly replace: boolean;
  /** Whether `order` was given explicitly (a replacement otherwise inherits the replaced one's). */
  readonly orderGiven: boolean;
  /** The bundle that added it, if any. */
  readonly bundle: string | undefined;
}

/** Global registration clock: every registration gets a later number than all before it. */
let clock = 0;

/** Next value of the registration clock (also used as the registries' version stamp). */
export function tick(): number {
  return ++clock;
}

/** The clock's latest value: a stamp equal to it is the newest, with nothing stamped anywhere since. */
export function lastTick(): number {
  return clock;
}

/**
 * Turns a target into its stage and phase.
 *
 * @throws MiddlewareError `ERR_UNKNOWN_PHASE` for anything that is not a genuine stage or phase token.
 */
export function resolveTarget(target: unknown, where: string): { stage: AnyStage; phase: Phase } {
  // One brand lookup rather than isStage() then isPhaseToken(): `add` runs this on every registration.
  const kind = brandOf(target);
  if (kind === 'stage') return { stage: target as AnyStage, phase: 'wrap' };
  if (kind === 'phase-token') {
    const token = target as AnyStage['Input'] | AnyStage['Wrap'] | AnyStage['Output'];
    return { stage: token.stage, phase: token.phase };
  }
  throw unknownTarget(where, target);
}

/**
 * The stage a call that runs or describes a stage was given.
 *
 * @throws MiddlewareError `ERR_UNKNOWN_PHASE` for anything but a genuine stage, one of its phase tokens included.
 */
export function stageOf(value: unknown, where: string): AnyStage {
  if (isStage(value)) return value;
  const { stage, phase } = resolveTarget(value, where);
  // A phase token names a stage but is not one: running or describing it would match no handler.
  throw phaseTokenNotStage(where, stage.name, phase);
}

/**
 * Validates a registration and stores what resolution needs.
 *
 * @throws MiddlewareError `ERR_UNKNOWN_PHASE`, `ERR_INVALID_HANDLER` or `ERR_INVALID_OPTIONS`.
 */
export function createRegistration(
  target: unknown,
  handler: unknown,
  options: AddOptions | undefined,
  bundle: string | undefined,
  where: string,
): StoredRegistration {
  const { stage, phase } = resolveTarget(target, where);
  const given = options ?? {};
  const name = handlerName(handler, phase, given.name);
  if (typeof handler !== 'function') throw notAFunction({ stage: stage.name, phase, handler: name }, handler);
  const problem = invalidOption(given, phase) ?? invalidByName(given, handler, where);
  if (problem !== undefined) throw invalidRegistration(where, { stage: stage.name, phase, handler: name }, problem);
  return {
    seq: tick(),
    stage,
    phase,
    handler: handler as (...args: never[]) => unknown,
    name,
    id: given.id,
    order: given.order ?? 0,
    orderGiven: given.order !== undefined,
    before: given.before === undefined ? NO_IDS : Object.freeze([...given.before]),
    after: given.after === undefined ? NO_IDS : Object.freeze([...given.after]),
    next: given.next ?? 'many',
    replace: given.replace === true,
    bundle,
  };
}

const POLICIES: readonly unknown[] = ['many', 'once', 'at-most-once'];

/**
 * The constraint lists of a registration without any: one shared list, frozen like every list `describe()`
 * returns, so that an add without constraints allocates none.
 */
const NO_IDS: readonly string[] = Object.freeze([]);

/** What is wrong with the options of a registration in `phase`, or undefined when nothing is. */
function invalidOption(given: AddOptions, phase: Phase): string | undefined {
  if (!isObject(given)) return `options must be an object, got ${describeValue(given)}`;
  if (given.name !== undefined && (typeof given.name !== 'string' || given.name.length === 0))
    return 'options.name must be a non-empty string';
  if (given.order !== undefined && !Number.isFinite(given.order))
    return `options.order must be a finite number, got ${describeValue(given.order)}`;
  if (given.id !== undefined && (typeof given.id !== 'string' || given.id.length === 0)) return 'options.id must be a non-empty string';
  const listProblem = invalidIds(given.before, 'before') ?? invalidIds(given.after, 'after');
  if (listProblem !== undefined) return listProblem;
  if (given.next !== undefined && !POLICIES.includes(given.next))
    return `options.next must be 'many', 'once' or 'at-most-once', got ${describeValue(given.next)}`;
  if (given.next !== undefined && given.next !== 'many' && phase !== 'wrap') return 'options.next applies to Wrap handlers only';
  if (given.replace !== undefined && typeof given.replace !== 'boolean') return 'options.replace must be a boolean';
  return undefined;
}

/** What is wrong with `replace: true` without an id (a replacement by name, MW-343), or undefined. */
function invalidByName(given: AddOptions, handler: unknown, where: string): string | undefined {
  if (given.replace !== true || given.id !== undefined) return undefined;
  if (where === 'invoke options.use') return 'options.replace needs an id to replace: a per-invoke handler replaces by id only';
  if (given.name === undefined && functionName(handler) === undefined)
    return 'options.replace needs an id, or a name (options.name or the function name) to replace by';
  return undefined;
}

/** What is wrong with `options.before` or `options.after`, or undefined. */
function invalidIds(list: unknown, key: 'before' | 'after'): string | undefined {
  if (list !== undefined && (!Array.isArray(list) || list.some((id) => typeof id !== 'string' || id.length === 0)))
    return `options.${key} must be an array of ids (non-empty strings)`;
  return undefined;
}

/**
 * The name a registration goes by: the `name` option when it is a non-empty
 * string, else the function's own name, else `anonymous <phase> handler`.
 */
export function handlerName(handler: unknown, phase: Phase, given: unknown): string {
  if (typeof given === 'string' && given.length > 0) return given;
  return functionName(handler) ?? `anonymous ${phase} handler`;
}

/** A function's own non-empty `name`, or undefined (a throwing or non-string `name` included). */
function functionName(value: unknown): string | undefined {
  if (typeof value !== 'function') return undefined;
  let name: unknown;
  try {
    name = value.name;
  } catch {
    // A `name` getter that throws leaves the function without a name.
  }
  return typeof name === 'string' && name.length > 0 ? name : undefined;
}

/** Where the errors about a registration arose: its stage, phase and name. */
export function errorSiteOf(registration: StoredRegistration): ErrorSite & { readonly phase: Phase } {
  return { stage: registration.stage.name, phase: registration.phase, handler: registration.name };
}

/** A registration taking `replaced`'s place: its sequence number and, unless given, its order. */
export function takePlace(registration: StoredRegistration, replaced: StoredRegistration): StoredRegistration {
  return { ...registration, seq: replaced.seq, order: registration.orderGiven ? registration.order : replaced.order };
}
