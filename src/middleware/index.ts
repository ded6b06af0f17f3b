/**
 * staged-middleware/middleware: the built-in middleware, for any stage.
 *
 * What a factory returns follows from what it does:
 * - one layer of the onion: a **Wrap handler**, registered with
 *   `registry.add(Stage.Wrap, retry())` (`retry`, `fallback`, `regenerate`,
 *   `timeout`, `rateLimit`, `cache`);
 * - it only observes: an **instrumentation**, registered with
 *   `registry.instrument(tracing({ tracer }))` (`tracing`, `logging`);
 * - it registers several handlers: a **bundle**, registered with
 *   `registry.use(validate(Stage, { context }))` (`validate`).
 *
 * Every handler is a named function, so errors, `describe()` and traces name
 * it. Every public name of this entry point is listed here.
 *
 * @packageDocumentation
 */
export { retry } from './retry';
export type { RetryInfo, RetryOptions } from './retry';
export { isRetryableError } from './retryable';
export { fallback } from './fallback';
export type { FallbackOptions } from './fallback';
export { regenerate } from './regenerate';
export type { RegenerateOptions } from './regenerate';
export type { AttemptBoundaryEvent, AttemptBoundaryInfo, AttemptStream } from './attempt-stream';
export type { AnyStageWrap, ContextWrap, StageWrap } from './wrap-types';
export { timeout } from './timeout';
export type { TimeoutOptions } from './timeout';
export { rateLimit } from './rate-limit';
export type { RateLimitOptions } from './rate-limit';
export type { SharedLimiter } from './shared-limit';
export type { RateLimitKey } from './rate-limit-key';
export { cache } from './cache';
export type { CacheErrorInfo, CacheOptions } from './cache';
export type { CacheEntry, CacheStore } from './cache-store';
export { LruStore } from './lru-store';
export { validate } from './validate';
export type { ValidateSchemas } from './validate';
export { tracing } from './tracing';
export { TRACING_ATTRIBUTES } from './tracing-attributes';
export type { TracingOptions } from './tracing';
export type { InvokeSpan, TracingConventions } from './tracing-conventions';
export type { TracingSpan } from './otel-types';
export { logging } from './logging';
export type { LogRecord, Logger, LoggingOptions } from './logging';
export type { Timers } from '../util/timers';
export type { BuiltInErrorCode } from './errors';
