/**
 * staged-middleware/middleware: the built-in middleware. Every factory works
 * on any stage and returns a Wrap handler or a bundle for `registry.use`.
 *
 * @packageDocumentation
 */
export type { BuiltInErrorCode } from './errors';
export { retry } from './retry';
export type { BackoffOptions, RetryInfo, RetryOptions } from './retry';
export { fallback } from './fallback';
export type { Alternative, FallbackOptions } from './fallback';
export { regenerate } from './regenerate';
export type { RegenerateOptions } from './regenerate';
export type { AttemptBoundaryEvent, AttemptBoundaryInfo, AttemptStream, LiveStream } from './attempt-stream';
export type { AnyStageWrap, ContextWrap, StageWrap } from './wrap-types';
export { timeout } from './timeout';
export type { TimeoutOptions } from './timeout';
export { rateLimit } from './rate-limit';
export type { MinIntervalLimit, RateLimitOptions, TokenBucketLimit } from './rate-limit';
export { cache } from './cache';
export type { CacheEntry, CacheErrorInfo, CacheOptions, CacheStore } from './cache';
export { LruStore } from './lru-store';
export { validate } from './validate';
export type { SchemaMismatch, SchemasFit, ValidateSchemas, Validation } from './validate';
export { tracing, TRACING_ATTRIBUTES } from './tracing';
export type { TracingApi, TracingOptions } from './tracing';
export { logging } from './logging';
export type { LogRecord, Logger, LoggingOptions } from './logging';
export { sleep } from './sleep';
export type { Waiter } from './sleep';
export { systemTimers } from '../util/timers';
export type { Timers } from '../util/timers';
