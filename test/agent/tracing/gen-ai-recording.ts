/**
 * What the GenAI tracing tests share: a model that names itself, a recording
 * tracer, finished spans as the tests compare them, the library's layer
 * attributes, the ways of handing tracing its OpenTelemetry, and a context
 * manager to register.
 */
import * as otel from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { genAiSpans, type AgentEvent } from '../../../src/agent/index';
import type { TracingOptions } from '../../../src/middleware/index';
import { ScriptedModel } from '../../../src/testing/index';
import { recordingTracer } from '../../middleware/recording-tracer';

/** A scripted model that names itself, as a provider's model does. */
export class NamedModel extends ScriptedModel {
  readonly modelId = 'test-model';
}

/** A tracer over an in-memory exporter (the one the tests of `tracing()` use). */
export const recording = recordingTracer;

/** A finished span as the tests compare it: everything a backend reads, the parent by name. */
export function tree(spans: readonly ReadableSpan[]) {
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
  return spans.map((span) => ({
    name: span.name,
    parent: span.parentSpanContext === undefined ? undefined : byId.get(span.parentSpanContext.spanId)?.name,
    kind: span.kind,
    status: span.status.code,
    attributes: span.attributes,
    events: span.events.map((event) => [event.name, event.attributes?.['exception.message']]),
  }));
}

/** The library's own attributes of a layer span (MW-093), the clock standing still. */
export function layer(stage: string, handler: string, position: number, attempt: number, events: number) {
  return {
    'staged.stage': stage,
    'staged.phase': handler === 'terminal' ? 'terminal' : 'wrap',
    'staged.handler': handler,
    'staged.order': 0,
    'staged.position': position,
    'staged.attempt': attempt,
    'staged.events': events,
    'staged.active_ms': 0,
    'staged.self_ms': 0,
  };
}

export const { INTERNAL, CLIENT } = otel.SpanKind;
export const { UNSET, ERROR } = otel.SpanStatusCode;

/** How the application hands tracing its OpenTelemetry and the agent kit's conventions: the span tree must be the same every way. */
export const setups = [
  {
    setup: 'api and tracer, with a context manager',
    contextManager: true,
    options: (tracer: otel.Tracer): TracingOptions => ({ api: otel, tracer, now: () => 0, conventions: [genAiSpans] }),
  },
  {
    setup: 'api and tracer, no context manager',
    contextManager: false,
    options: (tracer: otel.Tracer): TracingOptions => ({ api: otel, tracer, now: () => 0, conventions: [genAiSpans] }),
  },
  {
    setup: 'tracer only',
    contextManager: false,
    options: (tracer: otel.Tracer): TracingOptions => ({ tracer, now: () => 0, conventions: [genAiSpans] }),
  },
];

/** Registers an OpenTelemetry context manager (`afterEach` disables it again). */
export function useContextManager(): void {
  otel.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

/** Pulls every event of an agent run. */
export async function drain(events: AsyncIterable<AgentEvent>): Promise<void> {
  for await (const _event of events);
}
