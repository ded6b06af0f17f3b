import type { TracingOptions } from '../../middleware/index';

/** What `tracing` takes as `api`. */
type TracingApi = NonNullable<TracingOptions['api']>;

/**
 * A tracer and a stand-in for `@opentelemetry/api` that write each finished
 * span into a case's trace as `span:<name>[#<staged.attempt>][
 * caller=<staged.caller>] <- <parent name, or - for none>[ error]`.
 *
 * Why not the OpenTelemetry SDK: the conformance entry point must load
 * without the optional peer dependency. What `tracing` relies on is the
 * API's contract (a span's parent is the span a context holds under the
 * `Symbol.for` key the API defines, and `setSpan` returns a new context
 * holding it), which these few lines keep.
 */

/** The key `@opentelemetry/api` keeps a context's span under. */
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/** Status code ERROR of `@opentelemetry/api`. */
const STATUS_ERROR = 2;

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

/** A span that records its name, parent, attempt, caller and status. */
class RecordingSpan {
  private attempt: unknown;
  private caller: unknown;
  private failed = false;

  constructor(
    readonly name: string,
    private readonly parent: RecordingSpan | undefined,
    attributes: Record<string, unknown> | undefined,
    private readonly record: (line: string) => void,
  ) {
    this.attempt = attributes?.['staged.attempt'];
    this.caller = attributes?.['staged.caller'];
  }

  isRecording(): boolean {
    return true;
  }

  setAttribute(key: string, value: unknown): this {
    if (key === 'staged.attempt') this.attempt = value;
    if (key === 'staged.caller') this.caller = value;
    return this;
  }

  setAttributes(attributes: Record<string, unknown>): this {
    for (const [key, value] of Object.entries(attributes)) this.setAttribute(key, value);
    return this;
  }

  addEvent(): this {
    return this;
  }

  recordException(): void {}

  setStatus(status: { code: number }): this {
    if (status.code === STATUS_ERROR) this.failed = true;
    return this;
  }

  end(): void {
    const attempt = this.attempt === undefined ? '' : `#${String(this.attempt)}`;
    const caller = this.caller === undefined ? '' : ` caller=${String(this.caller)}`;
    this.record(`span:${this.name}${attempt}${caller} <- ${this.parent?.name ?? '-'}${this.failed ? ' error' : ''}`);
  }
}

/** A tracer recording into `record`, and an API stand-in that gives `tracing` that tracer and parents spans through contexts. */
export function recordingTracing(record: (line: string) => void): { readonly tracer: never; readonly api: TracingApi } {
  const tracer = {
    startSpan: (name: string, options?: { attributes?: Record<string, unknown> }, context?: RecordingContext): RecordingSpan =>
      new RecordingSpan(name, context?.getValue(SPAN_KEY) as RecordingSpan | undefined, options?.attributes, record),
  };
  const root = new RecordingContext();
  const api = {
    trace: { getTracer: () => tracer, setSpan: (context: RecordingContext, span: RecordingSpan) => context.setValue(SPAN_KEY, span) },
    context: { active: () => root },
  };
  return { tracer: tracer as never, api: api as unknown as TracingApi };
}
