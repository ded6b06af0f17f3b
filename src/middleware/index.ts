/**
 * staged-middleware/middleware: the built-in middleware. Every factory works
 * on any stage and returns a Wrap handler or a bundle for `registry.use`.
 *
 * @packageDocumentation
 */
export { retry } from './retry';
export type { BackoffOptions, RetryInfo, RetryOptions } from './retry';
export { isRetryableError } from './retryable';
export { fallback } from './fallback';
export type { Alternative, FallbackOptions } from './fallback';
export { regenerate } from './regenerate';
export type { RegenerateOptions, StageWrap } from './regenerate';
export type {
  AnyStageWrap,
  AttemptBoundaryEvent,
  AttemptBoundaryInfo,
  AttemptStream,
  ContextWrap,
  LiveStream,
} from './attempts';
export { timeout } from './timeout';
export type { TimeoutOptions } from './timeout';
export { rateLimit } from './rate-limit';
export type { MinIntervalLimit, RateLimitOptions, TokenBucketLimit } from './rate-limit';
export type { SharedLimit, SharedLimiter } from './shared-limit';
export { cache } from './cache';
export type { CacheEntry, CacheErrorInfo, CacheOptions, CacheStore } from './cache';
export { LruStore } from './lru-store';
export { validate } from './validate';
export type { SchemaMismatch, SchemasFit, ValidateSchemas, Validation } from './validate';
export { tracing, TRACING_ATTRIBUTES } from './tracing';
export type { TracingApi, TracingOptions } from './tracing';
export { logging } from './logging';
export type { LogRecord, Logger, LoggingOptions } from './logging';
export { sleep, systemTimers } from './sleep';
export type { Timers, Waiter } from './sleep';
