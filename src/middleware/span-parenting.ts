/**
 * How `tracing` parents its spans: through the OpenTelemetry API when it is
 * given, or else through an immutable context of the library's own, holding
 * the span under the key the API reads a context's span from, so that spans
 * nest alike either way (MW-093).
 *
 * @packageDocumentation
 */
import type { Context, TracingSpan, TracingApi } from './otel-types';

/**
 * The key under which `@opentelemetry/api` keeps a context's span. The API
 * makes its context keys with `Symbol.for`, so that every installed copy of
 * it agrees on them; that is what lets a layer span be parented without the API.
 */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/** An immutable OpenTelemetry context of our own, for parenting layer spans when no API is given. */
class SpanContext implements Context {
  /** Creates a context holding `values`. */
  constructor(private readonly values: ReadonlyMap<symbol, unknown>) {}

  /** The value under `key`, if any. */
  getValue(key: symbol): unknown {
    return this.values.get(key);
  }

  /** A new context with `key` set to `value`. */
  setValue(key: symbol, value: unknown): Context {
    return new SpanContext(new Map(this.values).set(key, value));
  }

  /** A new context without `key`. */
  deleteValue(key: symbol): Context {
    const values = new Map(this.values);
    values.delete(key);
    return new SpanContext(values);
  }
}

/** The span a context holds, if any (read the way the API reads it, so any copy of the API agrees). */
export function spanOf(context: Context | undefined): unknown {
  return context?.getValue(SPAN_KEY);
}

/** The empty context the invoke span's context is built on when no API is given. */
const EMPTY_CONTEXT: Context = /*#__PURE__*/ new SpanContext(new Map());

/** How one `tracing()` instance parents its spans. */
export interface Parenting {
  /** The invoke span's parent: the caller's active context, or undefined to leave it to the tracer. */
  readonly active: () => Context | undefined;
  /** A context whose span is `span`, built on `parent` (or on an empty context). */
  readonly setSpan: (parent: Context | undefined, span: TracingSpan) => Context;
  /** Runs `call` with `context` active: through the API when it is given; without it there is no active context to set. */
  readonly within: <TResult>(context: Context, call: () => TResult) => TResult;
}

/** `within` without the API. */
const direct = <TResult>(_context: Context, call: () => TResult): TResult => call();

/** The parenting of one `tracing()` instance: with `api` when given, else with the library's own contexts. */
export function parentingFor(api: TracingApi | undefined): Parenting {
  if (api === undefined)
    return { active: () => undefined, setSpan: (parent, span) => (parent ?? EMPTY_CONTEXT).setValue(SPAN_KEY, span), within: direct };
  // With the API, `active()` always gives a context, so every parent here is one.
  return {
    active: () => api.context.active(),
    setSpan: (parent, span) => api.trace.setSpan(parent as Context, span),
    within: (context, call) => api.context.with(context, call),
  };
}
