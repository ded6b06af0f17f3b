/**
 * The shapes of the OpenTelemetry API that `tracing` uses, written out here
 * rather than imported from `@opentelemetry/api`: that package is an
 * optional peer dependency, so the published type declarations must compile
 * (with `skipLibCheck: false`) where it is not installed. OpenTelemetry's own
 * `Tracer`, `Span`, `Context`, `TraceAPI` and `ContextAPI` fit these shapes,
 * so users pass them as they are.
 */

/** A span attribute value (mutable arrays, as OpenTelemetry declares them, so the two types fit each other). */
export type AttributeValue =
  string | number | boolean | (string | null | undefined)[] | (number | null | undefined)[] | (boolean | null | undefined)[];

/** Span attributes by name. */
export type Attributes = Record<string, AttributeValue | undefined>;

/** An immutable context: OpenTelemetry keeps the active span in one under a well-known key. */
export interface Context {
  /** The value under `key`. */
  getValue(key: symbol): unknown;
  /** A new context with `value` under `key`. */
  setValue(key: symbol, value: unknown): Context;
  /** A new context without `key`. */
  deleteValue(key: symbol): Context;
}

/** The span methods `tracing` calls. */
export interface TracingSpan {
  /** False for a span that records nothing (no provider, not sampled). */
  isRecording(): boolean;
  /** Sets one attribute. */
  setAttribute(key: string, value: AttributeValue): unknown;
  /** Sets several attributes. */
  setAttributes(attributes: Attributes): unknown;
  /** Adds a timed event. */
  addEvent(name: string, attributes?: Attributes): unknown;
  /** Records an exception as an event. */
  recordException(exception: Error | { readonly message: string }): unknown;
  /** Sets the status (code 2 is ERROR). */
  setStatus(status: { readonly code: number; readonly message?: string }): unknown;
  /** Ends the span. */
  end(): unknown;
}

/** Starts spans. */
export interface Tracer {
  /** Starts a span, child of the span `context` holds. */
  startSpan(name: string, options?: { readonly attributes?: Attributes; readonly kind?: number }, context?: Context): TracingSpan;
}

/** The parts of `trace` of `@opentelemetry/api` that `tracing` uses. */
export interface TraceAPI {
  /** A tracer of the global provider. */
  getTracer(name: string, version?: string): Tracer;
  /** A context whose span is `span`. */
  setSpan(context: Context, span: TracingSpan): Context;
}

/** The parts of `context` of `@opentelemetry/api` that `tracing` uses. */
export interface ContextAPI {
  /** The caller's active context. */
  active(): Context;
  /** Calls `fn` with `context` active (for as long as the registered context manager carries it). */
  with<TResult>(context: Context, fn: () => TResult): TResult;
}

/**
 * The parts of `@opentelemetry/api` tracing uses. Passed in rather than
 * imported so that `staged-middleware/middleware` loads without the optional
 * peer dependency: `import * as otel from '@opentelemetry/api'` and pass `otel`.
 */
export interface TracingApi {
  /** `trace` of `@opentelemetry/api`: the default tracer and span parenting. */
  readonly trace: Pick<TraceAPI, 'getTracer' | 'setSpan'>;
  /** `context` of `@opentelemetry/api`: the caller's active span becomes the invoke span's parent, and each layer span is active while its layer runs. */
  readonly context: Pick<ContextAPI, 'active' | 'with'>;
}
