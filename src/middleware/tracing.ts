/**
 * `tracing()`: OpenTelemetry spans for every invoke. Here are its options, the
 * invoke span and its handler events; the layer spans are in
 * `layer-spans.ts`, the attribute names in `tracing-attributes.ts`.
 *
 * @packageDocumentation
 */
import type { Attributes, ContextAPI, TraceAPI, Tracer } from './otel-types';
import type { Instrumentation, InvokeInfo, InvokeObserver, LayerInfo } from '../core/index';
import { invalidOption } from './errors';
import { checkOptionsObject, optionalFunction } from './options';
import { systemTimers } from '../util/timers';
import { parentingFor, spanOf, type Parenting } from './span-parenting';
import { errorMessage, spanFailures, type FailSpan } from './span-failures';
import { genAiSpan } from './gen-ai-spans';
import { runParents, type RunParents } from './run-parents';
import { InterruptSignal } from '../agent/session/interrupts';
import { traceLayer, type LayerRecord, type Shared } from './layer-spans';
import { TRACING_ATTRIBUTES } from './tracing-attributes';
import { isObject } from '../util/is-object';

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

/** Options of {@link tracing}: at least one of `tracer` and `api`. */
export interface TracingOptions {
  /** The tracer. Default: `api.trace.getTracer('staged-middleware')`; required when `api` is not given. */
  readonly tracer?: Tracer;
  /** The OpenTelemetry API (`import * as otel from '@opentelemetry/api'`): the default tracer, and the caller's active span as the invoke span's parent. */
  readonly api?: TracingApi;
  /** Clock for the `*_ms` attributes (ms). Default: `performance.now`. */
  readonly now?: () => number;
}

/**
 * OpenTelemetry spans for every invoke: one span per invoke and, nested like the onion, one child span per entry
 * into a Wrap layer or the terminal. A retry's second entry is a second
 * sibling span with `staged.attempt` 2. Each layer span carries the stage,
 * phase, handler, order, position, attempt, event count, the error if any,
 * its active time and its self time (active time minus the active time of
 * the layers it entered).
 *
 * Give `tracer`, `api`, or both. With `api`, the invoke span is a child of
 * the caller's active span and the tracer defaults to
 * `api.trace.getTracer('staged-middleware')`. With only `tracer`, the
 * invoke span's parent is whatever the tracer takes when given no context
 * (the OpenTelemetry SDK takes the active context of its own copy of the
 * API), and the layer spans are parented through contexts of our own
 * holding the span under the API's span key, so they nest exactly as with `api`.
 *
 * With `api`, each layer span is the active span while its layer's own code
 * runs (each pull), so your spans and an HTTP client's nest under it when a
 * context manager is registered.
 *
 * The agent kit's standard stages get GenAI span names and attributes
 * (`invoke_agent <agent>`, `chat <model>`, `execute_tool <tool>`, with
 * usage, finish reasons, tool call ids), and the model, tool and turn invokes
 * of one agent run nest under its AgentStreamStage terminal span, with or
 * without `api`. An error's `exception` event is recorded once, on the span
 * where it was thrown; an interrupt is no error (`staged.interrupted`).
 *
 * When the invoke span does not record (no tracer provider registered, or the
 * invoke is not sampled), that one non-recording span is started and ended,
 * no observer is returned and no layer is wrapped.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` at once when neither `tracer` nor `api` is given, or either is malformed.
 * @example
 * ```ts
 * import * as otel from '@opentelemetry/api';
 * registry.instrument(tracing({ api: otel }));
 * // or, with a tracer of your own: tracing({ tracer: provider.getTracer('my-app') })
 * ```
 */
export function tracing(options: TracingOptions): Instrumentation {
  checkOptionsObject('tracing', options, '{ tracer?, api?, now? } with tracer or api');
  const { api, tracer: given } = options;
  if (api !== undefined && !isTracingApi(api)) {
    throw invalidOption('tracing', "options.api must be the OpenTelemetry API (import * as otel from '@opentelemetry/api')", api);
  }
  if (api === undefined && given === undefined) {
    throw invalidOption(
      'tracing',
      "pass options.tracer (an OpenTelemetry Tracer, such as provider.getTracer('my-app')) or options.api (import * as otel from '@opentelemetry/api'), or both",
      options,
    );
  }
  // eslint-disable-next-line @typescript-eslint/prefer-nullish-coalescing -- a JavaScript caller's null tracer must reach the check below, not fall back to the API's
  const tracer = given !== undefined ? given : (api as TracingApi).trace.getTracer('staged-middleware');
  if (!isObject(tracer) || typeof tracer.startSpan !== 'function') {
    throw invalidOption('tracing', 'options.tracer must be an OpenTelemetry Tracer (with startSpan)', tracer);
  }
  const now = optionalFunction('tracing', 'now', options.now) ?? (() => systemTimers.now());
  const instance: Instance = { tracer, parenting: parentingFor(api), now, fail: spanFailures(), runs: runParents() };
  return Object.freeze({ name: 'tracing', invoke: (info: InvokeInfo) => observeInvoke(info, instance) });
}

/** What every invoke one `tracing()` instance traces shares. */
export interface Instance {
  /** Starts the spans. */
  readonly tracer: Tracer;
  /** Parents the spans. */
  readonly parenting: Parenting;
  /** Clock of the `*_ms` attributes. */
  readonly now: () => number;
  /** Marks spans failed, each error's exception recorded once. */
  readonly fail: FailSpan;
  /** The open agent runs, so the invokes inside one nest under it. */
  readonly runs: RunParents<LayerRecord>;
}

/** Starts the invoke span and returns its observer, or nothing when the span does not record. */
function observeInvoke(info: InvokeInfo, instance: Instance): InvokeObserver | undefined {
  const { tracer, parenting, fail } = instance;
  const callerContext = parenting.active();
  const active = instance.runs.of(info.stage, info.context, spanOf(callerContext))?.context ?? callerContext;
  const genAi = genAiSpan(info);
  const caller = (info.context as { caller?: unknown } | null | undefined)?.caller;
  const attributes: Attributes = {
    [TRACING_ATTRIBUTES.stage]: info.stage.name,
    ...(typeof caller === 'string' ? { [TRACING_ATTRIBUTES.caller]: caller } : {}),
    ...genAi?.attributes,
  };
  const root = tracer.startSpan(
    genAi?.name ?? info.stage.name,
    { ...(genAi === undefined ? {} : { kind: genAi.kind }), attributes },
    active,
  );
  if (!root.isRecording()) {
    root.end();
    return undefined;
  }
  const rootContext = parenting.setSpan(active, root);
  // Keyed by the core's layer info, whose `parent` names the entry that called next(): exact under hedging too.
  const records = new WeakMap<LayerInfo, LayerRecord>();
  const shared: Shared = { ...instance, records, rootContext };

  return {
    layer(layer, events) {
      const parent = layer.parent === undefined ? undefined : records.get(layer.parent);
      return traceLayer(layer, events, parent, shared);
    },
    // Rest parameter: a handler may throw `undefined`, so the failure is told by the argument's presence.
    handlerEnd(handler, ...failure: unknown[]) {
      root.addEvent(`${handler.phase} ${handler.handler}`, {
        [TRACING_ATTRIBUTES.phase]: handler.phase,
        [TRACING_ATTRIBUTES.handler]: handler.handler,
        [TRACING_ATTRIBUTES.order]: handler.order,
        ...(failure.length === 0 ? {} : failureAttributes(failure[0])),
      });
    },
    end(outcome) {
      if (genAi !== undefined) genAi.end(root, outcome, fail);
      else if (outcome.status === 'error') fail(root, outcome.error);
      if (outcome.status === 'closed') root.setAttribute(TRACING_ATTRIBUTES.closed, true);
      root.end();
    },
  };
}

/** What a handler event says of the handler's failure; an interrupt is none. */
function failureAttributes(error: unknown): Attributes {
  return InterruptSignal.isInstance(error) ? { [TRACING_ATTRIBUTES.interrupted]: true } : { 'exception.message': errorMessage(error) };
}

/** Whether `value` has the parts of the OpenTelemetry API that tracing calls (a JavaScript caller may pass anything). */
function isTracingApi(value: unknown): boolean {
  const api = value as Partial<TracingApi> | null;
  return (
    api !== null &&
    typeof api.trace?.setSpan === 'function' &&
    typeof api.context?.active === 'function' &&
    typeof api.context.with === 'function'
  );
}
