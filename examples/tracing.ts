/**
 * OpenTelemetry for every stage: a tracer provider and a context manager
 * registered globally, and `tracing` on the registry, with the agent kit's
 * span conventions. The "Tracing with OpenTelemetry" block of
 * docs/middleware.md; `examples/tracing-tree.ts` runs an agent with it.
 *
 * Your own code takes these names from 'staged-middleware', 'staged-middleware/agent' and 'staged-middleware/middleware'.
 */
import * as otel from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { MiddlewareRegistry } from '../src/core/index';
import { genAiSpans } from '../src/agent/index';
import { tracing } from '../src/middleware/index';

/** A registry whose every invoke is traced into `processor` (in production: new BatchSpanProcessor(new OTLPTraceExporter())). */
export function tracedRegistry(processor: SpanProcessor): MiddlewareRegistry {
  // What NodeTracerProvider's register() does: a global provider, and a context manager
  // that carries the active span across awaits, so your own spans (and an HTTP client's)
  // started inside a handler, a model or a tool nest under the layer that runs them.
  otel.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [processor] }));
  otel.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

  const registry = new MiddlewareRegistry();
  // The agent kit's conventions: GenAI names and attributes for its stages, and one span tree per agent run.
  registry.instrument(tracing({ api: otel, conventions: [genAiSpans] }));
  return registry;
}
