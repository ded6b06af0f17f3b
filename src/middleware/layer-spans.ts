/**
 * The span of one entry into a Wrap layer or the terminal: a child of the
 * span of the entry that called `next()` (or of the invoke span), active
 * while the layer's own code runs, with the layer's event count, its active
 * time and its self time when it settles. `tracing.ts` starts the invoke
 * span and hands each layer here.
 *
 * @packageDocumentation
 */
import type { LayerInfo } from '../core/index';
import { observeLayer } from './observed-layer';
import type { Context, TracingSpan, Tracer } from './otel-types';
import type { FailSpan } from './span-failures';
import type { Parenting } from './span-parenting';
import type { RunParents } from './run-parents';
import type { TracingConventions } from './tracing-conventions';
import { TRACING_ATTRIBUTES } from './tracing-attributes';

/** One entry into a layer, while its span is open. */
export interface LayerRecord {
  /** The entry's span. */
  readonly span: TracingSpan;
  /** The OpenTelemetry context whose active span is this entry's span: the parent of the layers it enters. */
  readonly context: Context;
  /** Time spent inside this layer's pulls, its inner layers included. */
  active: number;
  /** Time its inner layer entries spent inside their own pulls. */
  inner: number;
}

/** What every invoke one `tracing()` instance traces shares (built by `tracing.ts`). */
export interface Instance {
  /** Starts the spans. */
  readonly tracer: Tracer;
  /** Parents the spans. */
  readonly parenting: Parenting;
  /** Clock of the `*_ms` attributes. */
  readonly now: () => number;
  /** Marks spans failed, each error's exception recorded once. */
  readonly fail: FailSpan;
  /** The span conventions given, first conventions first. */
  readonly conventions: readonly TracingConventions[];
  /** The open runs, so the invokes that join one nest under the entry that opened it. */
  readonly runs: RunParents<LayerRecord>;
}

/** What every layer entry of one invoke shares. */
export interface Shared extends Instance {
  /** Open entries by layer info, so an inner entry finds the entry that called `next()`. */
  readonly records: WeakMap<LayerInfo, LayerRecord>;
  /** Context of the invoke span, the parent of the outermost entries. */
  readonly rootContext: Context;
}

/** Forwards one layer entry inside a span that is the child of the entry that called `next()`. */
export function traceLayer(
  layer: LayerInfo,
  events: AsyncGenerator<unknown, void, undefined>,
  parent: LayerRecord | undefined,
  shared: Shared,
): AsyncGenerator<unknown, void, undefined> {
  return observeLayer(events, () => {
    const { tracer, parenting, now, records, fail } = shared;
    const parentContext = parent === undefined ? shared.rootContext : parent.context;
    const phase = layer.kind === 'terminal' ? 'terminal' : 'wrap';
    const span = tracer.startSpan(
      `${layer.stage.name} ${phase === 'terminal' ? 'terminal' : layer.handler}`,
      {
        attributes: {
          [TRACING_ATTRIBUTES.stage]: layer.stage.name,
          [TRACING_ATTRIBUTES.phase]: phase,
          [TRACING_ATTRIBUTES.handler]: layer.handler,
          [TRACING_ATTRIBUTES.order]: layer.order,
          [TRACING_ATTRIBUTES.position]: layer.position,
          [TRACING_ATTRIBUTES.attempt]: layer.attempt,
        },
      },
      parentContext,
    );
    const record: LayerRecord = { span, context: parenting.setSpan(parentContext, span), active: 0, inner: 0 };
    records.set(layer, record);
    const leaveRun = shared.runs.open(layer, record);
    return {
      /**
       * Runs each call into the layer with its span active, so spans started by the layer's own code nest under it,
       * and charges its time to this entry and to the entry that contains it.
       */
      call: async <T>(into: () => Promise<T>): Promise<T> => {
        const started = now();
        try {
          return await parenting.within(record.context, into);
        } finally {
          const elapsed = now() - started;
          record.active += elapsed;
          if (parent !== undefined) parent.inner += elapsed;
        }
      },
      failed: (error) => {
        fail(span, error);
      },
      closing: () => span.setAttribute(TRACING_ATTRIBUTES.closed, true),
      settled: (count) => {
        leaveRun?.();
        span.setAttributes({
          [TRACING_ATTRIBUTES.events]: count,
          [TRACING_ATTRIBUTES.activeMs]: record.active,
          // Clamped: a handler pulling its inner layer ahead, outside its own pulls, could make it negative.
          [TRACING_ATTRIBUTES.selfMs]: Math.max(0, record.active - record.inner),
        });
        span.end();
      },
    };
  });
}
