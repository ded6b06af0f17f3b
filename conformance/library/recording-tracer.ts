import type { TracingOptions } from '../../src/middleware/index';

/** What `tracing` takes as `api`. */
type TracingApi = NonNullable<TracingOptions['api']>;

/**
 * A tracer and a stand-in for `@opentelemetry/api` (as it is with no
 * context manager registered) that hand each finished span to a recorder:
 * its name, parent, kind, status, attributes and exception events, as an
 * observability backend reads them.
 *
 * Why not the OpenTelemetry SDK: the conformance entry point must load
 * without the optional peer dependency. What `tracing` relies on is the
 * API's contract (a span's parent is the span a context holds under the
 * `Symbol.for` key the API defines, `setSpan` returns a new context holding
 * it, and `context.with` runs a function with a context active, which
 * without a context manager means just running it), which these few lines
 * keep.
 */

/** The key `@opentelemetry/api` keeps a context's span under. */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/** Status code ERROR of `@opentelemetry/api`. */
const STATUS_ERROR = 2;

/** The names of `SpanKind` of `@opentelemetry/api`, by value. */
const KINDS = ['internal', 'server', 'client', 'producer', 'consumer'] as const;

/** One finished span, as the recorder gets it. */
export interface RecordedSpan {
  /** The span's name. */
  readonly name: string;
  /** The parent span's name; null for a span without a parent. */
  readonly parent: string | null;
  /** The span kind's name (`internal` when `startSpan` gave none). */
  readonly kind: string;
  /** `error` when its status is ERROR, else `unset`. */
  readonly status: 'unset' | 'error';
  /** Its attributes as they were when it ended (undefined values dropped, as the SDK drops them). */
  readonly attributes: Readonly<Record<string, unknown>>;
  /** The message of each of its `exception` events, in order. */
  readonly exceptions: readonly string[];
}

/** An immutable context, as the API's `Context`. */
class RecordingContext {
  constructor(private readonly values: ReadonlyMap<symbol, unknown> = new Map()) {}

  getValue(key: symbol): unknown {
    return this.values.get(key);
  }

  setValue(key: symbol, value: unknown): RecordingContext {
    return new RecordingContext(new Map(this.values).set(key, value));
  }

  deleteValue(key: symbol): RecordingContext {
    const values = new Map(this.values);
    values.delete(key);
    return new RecordingContext(values);
  }
}

/** A span that records its name, parent, kind, status, attributes and exceptions. */
class RecordingSpan {
  private readonly attributes: Record<string, unknown> = {};
  private readonly exceptions: string[] = [];
  private failed = false;
  private ended = false;

  constructor(
    readonly name: string,
    private readonly parent: RecordingSpan | undefined,
    private readonly kind: number,
    attributes: Record<string, unknown> | undefined,
    private readonly record: (span: RecordedSpan) => void,
  ) {
    this.setAttributes(attributes ?? {});
  }

  isRecording(): boolean {
    return !this.ended;
  }

  setAttribute(key: string, value: unknown): this {
    if (!this.ended && value !== undefined && value !== null)
      this.attributes[key] = Array.isArray(value) ? [...(value as unknown[])] : value;
    return this;
  }

  setAttributes(attributes: Record<string, unknown>): this {
    for (const [key, value] of Object.entries(attributes)) this.setAttribute(key, value);
    return this;
  }

  addEvent(): this {
    return this;
  }

  recordException(exception: { readonly message?: unknown } | string): void {
    if (!this.ended) this.exceptions.push(typeof exception === 'string' ? exception : String(exception.message));
  }

  setStatus(status: { code: number }): this {
    if (!this.ended && status.code === STATUS_ERROR) this.failed = true;
    return this;
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.record({
      name: this.name,
      parent: this.parent?.name ?? null,
      kind: KINDS[this.kind] ?? String(this.kind),
      status: this.failed ? 'error' : 'unset',
      attributes: { ...this.attributes },
      exceptions: [...this.exceptions],
    });
  }
}

/** A tracer handing each finished span to `record`, and an API stand-in that gives `tracing` that tracer and parents spans through contexts. */
export function recordingTracing(record: (span: RecordedSpan) => void): { readonly tracer: never; readonly api: TracingApi } {
  const tracer = {
    startSpan: (
      name: string,
      options?: { attributes?: Record<string, unknown>; kind?: number },
      context?: RecordingContext,
    ): RecordingSpan =>
      new RecordingSpan(name, context?.getValue(SPAN_KEY) as RecordingSpan | undefined, options?.kind ?? 0, options?.attributes, record),
  };
  const root = new RecordingContext();
  const api = {
    trace: { getTracer: () => tracer, setSpan: (context: RecordingContext, span: RecordingSpan) => context.setValue(SPAN_KEY, span) },
    // No context manager: the active context is always the root one, and `with` only runs the function.
    context: { active: () => root, with: <TResult>(_context: RecordingContext, run: () => TResult): TResult => run() },
  };
  return { tracer: tracer as never, api: api };
}

/**
 * A chain case's trace line of a span:
 * `span:<name>[#<staged.attempt>][ caller=<staged.caller>] <- <parent name, or - for none>[ error][ exception]`.
 */
export function spanLine(span: RecordedSpan): string {
  const attempt = span.attributes['staged.attempt'] as number | undefined;
  const caller = span.attributes['staged.caller'] as string | undefined;
  return `span:${span.name}${attempt === undefined ? '' : `#${attempt}`}${caller === undefined ? '' : ` caller=${caller}`} <- ${span.parent ?? '-'}${span.status === 'error' ? ' error' : ''}${span.exceptions.length > 0 ? ' exception' : ''}`;
}
