/**
 * Span conventions: how `tracing()` learns what the spans of stages it does
 * not know are called, what they carry, how they end and which invokes nest
 * under which layer entry (MW-093). `tracing()` itself names every span after
 * its stage; a kit that defines stages hands its conventions in, as the agent
 * kit does with `genAiSpans` (MW-190, MW-192).
 *
 * @packageDocumentation
 */
import type { InvokeInfo, InvokeOutcome, LayerInfo } from '../core/index';
import { invalidOption } from './errors';
import type { Attributes, TracingSpan } from './otel-types';
import { isObject } from '../util/is-object';

/**
 * What the invoke span of one invoke is called and carries, as {@link TracingConventions.invokeSpan} describes it.
 * Layer spans are never renamed: they stay `<stage> <handler>` and `<stage> terminal`.
 */
export interface InvokeSpan {
  /** The span name. */
  readonly name: string;
  /** The span kind, a `SpanKind` value of `@opentelemetry/api` (0 INTERNAL, 1 SERVER, 2 CLIENT, ...). Default: the tracer's (INTERNAL). */
  readonly kind?: number;
  /** Attributes known when the invoke starts, set besides `staged.stage` and `staged.caller`; an undefined value sets nothing. */
  readonly attributes?: Attributes;
  /**
   * Runs once when the invoke settles, before the span ends: sets what only the outcome tells (a result's token
   * counts). An error outcome has already marked the span failed (MW-191); `fail` marks it failed with an error the
   * core does not see (an error the result carries), recording that error once across the spans of the instance.
   */
  readonly end?: (span: TracingSpan, outcome: InvokeOutcome, fail: (span: TracingSpan, error: unknown) => void) => void;
}

/**
 * Span conventions for stages of your own (or a kit's): passed to `tracing()` as `options.conventions`, first
 * conventions first. Each member is optional and is called with the info the core gives instrumentations (MW-052);
 * answer undefined for a stage you do not know, and the next conventions are asked. A member that throws fails the
 * invoke, as an instrumentation that throws does, so read a context defensively.
 *
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api';
 * import { tracing, type TracingConventions } from 'staged-middleware/middleware';
 *
 * const modelSpans: TracingConventions = {
 *   invokeSpan: ({ stage, context }) =>
 *     stage === ModelStage ? { name: `generate ${(context as ModelContext).model}`, kind: otel.SpanKind.CLIENT } : undefined,
 * };
 * registry.instrument(tracing({ api: otel, conventions: [modelSpans] }));
 * ```
 */
export interface TracingConventions {
  /** The invoke span of an invoke (called when the invoke starts), or undefined: a span named after the stage. */
  readonly invokeSpan?: (info: InvokeInfo) => InvokeSpan | undefined;
  /**
   * The run a layer entry opens, or undefined: while the entry's span is open, the invokes that join this run (by
   * identity, see `joinsRun`) are children of the entry's span, with or without a context manager (MW-192). Hold the
   * run object weakly reachable: tracing keeps its open entries in a `WeakMap` keyed by it.
   */
  readonly opensRun?: (layer: LayerInfo) => object | undefined;
  /** The run an invoke joins (called when the invoke starts), or undefined: it takes its parent as every invoke does. */
  readonly joinsRun?: (info: InvokeInfo) => object | undefined;
}

/** The members of {@link TracingConventions}, each checked to be a function when present. */
const MEMBERS = ['invokeSpan', 'opensRun', 'joinsRun'] as const;

/**
 * The conventions `tracing()` was given, checked and copied, so that a caller changing its array afterwards changes nothing.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` unless `conventions` is undefined or an array of conventions objects.
 */
export function checkConventions(conventions: unknown): readonly TracingConventions[] {
  if (conventions === undefined) return [];
  if (!Array.isArray(conventions)) {
    throw invalidOption(
      'tracing',
      'options.conventions must be an array of span conventions, such as [genAiSpans] of staged-middleware/agent',
      conventions,
    );
  }
  return Object.freeze(
    conventions.map((each: unknown, index) => {
      if (!isObject(each))
        throw invalidOption('tracing', `options.conventions[${index}] must be an object { invokeSpan?, opensRun?, joinsRun? }`, each);
      const members = each as Record<(typeof MEMBERS)[number], unknown>;
      for (const member of MEMBERS) {
        if (members[member] !== undefined && typeof members[member] !== 'function') {
          throw invalidOption('tracing', `options.conventions[${index}].${member} must be a function when given`, members[member]);
        }
      }
      return each;
    }),
  );
}

/** The first answer of `ask` among `conventions` that is not undefined. */
export function firstAnswer<TAnswer>(
  conventions: readonly TracingConventions[],
  ask: (each: TracingConventions) => TAnswer | undefined,
): TAnswer | undefined {
  for (const each of conventions) {
    const answer = ask(each);
    if (answer !== undefined) return answer;
  }
  return undefined;
}
