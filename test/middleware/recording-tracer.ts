/**
 * A tracer that records, for the tests of `tracing()`: an OpenTelemetry SDK
 * tracer over an in-memory exporter, and its spans as the tests compare them.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

/** A tracer and the exporter that holds what it recorded. */
export function recordingTracer() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer('test') };
}

/** A span reduced to what the tests compare: name, parent name, and the attributes. */
export function tree(spans: readonly ReadableSpan[]) {
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
  return spans.map((span) => ({
    name: span.name,
    parent: span.parentSpanContext === undefined ? undefined : byId.get(span.parentSpanContext.spanId)?.name,
    attributes: span.attributes,
    status: span.status.code,
  }));
}
