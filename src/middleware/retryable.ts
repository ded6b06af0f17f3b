import { MiddlewareError } from '../core/index';
import { isInterruptSignal } from './errors';

/**
 * How `retry` tells a transient failure from a permanent one, and how long
 * the server asked it to wait, from the shapes HTTP clients give their errors.
 *
 * Why these shapes: the Vercel AI SDK's `APICallError` carries `statusCode`,
 * `responseHeaders` (a plain record) and its own `isRetryable` verdict; the
 * OpenAI and Anthropic SDKs' errors carry `status` and `headers` (a `Headers`
 * object or a plain record); axios-style errors carry `response.status` and
 * `response.headers`. Reading all of them lets the default work with every
 * provider client without an adapter.
 */

/** HTTP statuses in 400–499 that are worth another attempt: request timeout and too many requests. */
const RETRYABLE_CLIENT_STATUSES: ReadonlySet<number> = new Set([408, 429]);

/** A non-null object or function whose properties can be read. */
function isRecord(value: unknown): value is Record<string, unknown> {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

/**
 * The HTTP status an error carries: `status`, else `statusCode`, else
 * `response.status`, whichever is first an integer from 100 to 599.
 */
export function statusOf(error: unknown): number | undefined {
  if (!isRecord(error)) return undefined;
  const response = error.response;
  for (const candidate of [error.status, error.statusCode, isRecord(response) ? response.status : undefined]) {
    if (typeof candidate === 'number' && Number.isInteger(candidate) && candidate >= 100 && candidate <= 599) return candidate;
  }
  return undefined;
}

/**
 * The default `retryOn` of `retry` (MW-220): true for an error worth another
 * attempt. In order: an interrupt signal of the agent kit (a question to a
 * human) is never retried; a `MiddlewareError` is retried only with code
 * `ERR_TIMEOUT`; an `isRetryable` boolean on the error decides; a status of
 * 408, 429 or 500–599 is retried and any other 400–499 is not; anything else
 * (a plain `Error`, a network failure) is retried. `ERR_ABORTED` is never
 * retried whatever this returns (MW-083).
 *
 * @example
 * ```ts
 * class QuotaExhausted extends Error {}
 * retry({ retryOn: (error, attempt) => isRetryableError(error) && !(error instanceof QuotaExhausted) });
 * ```
 */
export function isRetryableError(error: unknown): boolean {
  if (isInterruptSignal(error)) return false;
  if (MiddlewareError.isInstance(error)) return error.code === 'ERR_TIMEOUT';
  if (isRecord(error) && typeof error.isRetryable === 'boolean') return error.isRetryable;
  const status = statusOf(error);
  if (status === undefined || status < 400) return true;
  if (status < 500) return RETRYABLE_CLIENT_STATUSES.has(status);
  return true;
}

/** One header of a header container: a `Headers`-like object with `get`, or a plain record matched without regard to case. */
function header(headers: unknown, name: string): unknown {
  if (!isRecord(headers)) return undefined;
  if (typeof headers.get === 'function') {
    try {
      return (headers.get as (name: string) => unknown).call(headers, name) ?? undefined;
    } catch {
      return undefined;
    }
  }
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() === name) {
      const value = headers[key];
      return Array.isArray(value) ? value[0] : value;
    }
  }
  return undefined;
}

/** A non-negative decimal number written as digits, with an optional fraction. */
const DECIMAL = /^\s*\d+(?:\.\d+)?\s*$/;

/** How every HTTP date format begins: a day name (`Wed,`, `Wednesday,`, `Wed `). */
const HTTP_DATE_START = /^\s*[A-Za-z]{3}/;

/** A header value as a number of units: a number, or a string of digits. */
function decimal(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value === 'string' && DECIMAL.test(value)) return Number(value);
  return undefined;
}

/**
 * How long the server asked the client to wait before the next attempt, in
 * ms (MW-221), from the first header container of `headers`,
 * `responseHeaders` and `response.headers` that holds a hint:
 * `retry-after-ms` (milliseconds), else `Retry-After` as delay-seconds or as
 * an HTTP date (its distance from `wallClock()`, 0 when past). Undefined when
 * the error carries no readable hint.
 */
export function retryAfterMs(error: unknown, wallClock: () => number): number | undefined {
  if (!isRecord(error)) return undefined;
  const response = error.response;
  for (const headers of [error.headers, error.responseHeaders, isRecord(response) ? response.headers : undefined]) {
    const milliseconds = decimal(header(headers, 'retry-after-ms'));
    if (milliseconds !== undefined) return milliseconds;
    const value = header(headers, 'retry-after');
    const seconds = decimal(value);
    if (seconds !== undefined) return seconds * 1000;
    // An HTTP date starts with the day's name; Date.parse would read "-1" as a year.
    if (typeof value === 'string' && HTTP_DATE_START.test(value)) {
      const date = Date.parse(value);
      if (Number.isFinite(date)) return Math.max(0, date - wallClock());
    }
  }
  return undefined;
}
