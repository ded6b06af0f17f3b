/**
 * How `tracing` marks spans that failed, the way observability backends
 * count errors (MW-191): the `exception` event once, on the span where the
 * error was thrown, status ERROR on every span it crossed, and an interrupt
 * (a question to a human, MW-113) no error at all.
 *
 * @packageDocumentation
 */
import type { Span } from './otel-types';
import { InterruptSignal } from '../agent/session/interrupts';

/** Status code ERROR of `@opentelemetry/api` (a const enum there; the value is part of its stable API). */
const STATUS_ERROR = 2;

/** Attribute set on a span an interrupt crossed, in place of an error. */
export const INTERRUPTED_ATTRIBUTE = 'staged.interrupted';

/** Marks spans failed; one per `tracing()` instance, so an error is recorded once across the invokes it traces. */
export type FailSpan = (span: Span, error: unknown) => void;

/**
 * A `fail` whose `exception` event goes only on the first span an error
 * object fails. Spans fail from the inside out (a layer's pull rejects before
 * the pull of the layer around it), so that first span is the innermost one,
 * where the error was thrown.
 */
export function spanFailures(): FailSpan {
  // Weak: an error seen once is kept by nothing here.
  const recorded = new WeakSet();
  return (span, error) => {
    if (InterruptSignal.isInstance(error)) {
      span.setAttribute(INTERRUPTED_ATTRIBUTE, true);
      return;
    }
    // A thrown primitive cannot be told from another throw of an equal value, so each span it fails records it.
    const identified = (typeof error === 'object' && error !== null) || typeof error === 'function';
    if (!identified || !recorded.has(error)) {
      if (identified) recorded.add(error);
      span.recordException(error instanceof Error ? error : { message: errorMessage(error) });
    }
    span.setStatus({ code: STATUS_ERROR, message: errorMessage(error) });
  };
}

/** A message for any thrown value. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
