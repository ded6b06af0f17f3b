/**
 * The attribute names of the spans `tracing()` records, fixed so dashboards
 * can rely on them (span conventions add their own, as the agent kit's
 * GenAI attributes in `agent/tracing/gen-ai-spans.ts`).
 *
 * @packageDocumentation
 */
import { INTERRUPTED_ATTRIBUTE } from './span-failures';

/** Span attribute names, fixed so dashboards can rely on them. */
export const TRACING_ATTRIBUTES = {
  /** Stage name (every span). */
  stage: 'staged.stage',
  /** `'wrap'` or `'terminal'` (layer spans), the phase of an Input/Output handler event. */
  phase: 'staged.phase',
  /** Handler name. */
  handler: 'staged.handler',
  /** The handler's `order` option. */
  order: 'staged.order',
  /** Position in the Wrap phase, 0 being the outermost. */
  position: 'staged.position',
  /** Entry number of the layer: 2 for a retry's second entry. */
  attempt: 'staged.attempt',
  /** Events the layer yielded. */
  events: 'staged.events',
  /** Time spent inside the layer's pulls, inner layers included (ms). */
  activeMs: 'staged.active_ms',
  /** Active time minus the active time of the layers it entered (ms). */
  selfMs: 'staged.self_ms',
  /** True when the consumer closed the layer (or the invoke) before it ended. */
  closed: 'staged.closed',
  /** True when an interrupt (a question to a human) ended the layer or the invoke: no error. */
  interrupted: INTERRUPTED_ATTRIBUTE,
  /** Who made the invoke when its context says (`context.caller`: a middleware's model call, MW-166); invoke spans only. */
  caller: 'staged.caller',
} as const;
