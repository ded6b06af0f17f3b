import type { HandlerCall } from '../core/index';
import { keyNotAString } from './errors';

/** The key function of `rateLimit`: the key value an activation's quota is kept under (a user, a tenant). */
export type RateLimitKey<TContext> = (context: TContext) => string;

/**
 * The key value of one activation (MW-278): what `key` returns when it is a
 * string. What `key` throws passes through unchanged, as every user error.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `key` returns anything but a string.
 */
export function keyValueOf<TContext>(key: RateLimitKey<TContext>, context: TContext, run: HandlerCall): string {
  const value: unknown = key(context);
  if (typeof value !== 'string') throw keyNotAString(run, value);
  return value;
}

/** What the store key of a key value starts with in a shared limiter (MW-279). */
const SHARED_KEY_PREFIX = 'staged-middleware.rateLimit:';

/** `%`, `:` and lone surrogates: the code units escaping rewrites. */
const ESCAPED = /[%:]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The shared limiter's key for a key value (MW-279). Escaping keeps the map
 * one-to-one, so no tenant's value can name another tenant's quota, and
 * leaves no lone surrogate a UTF-8 store would turn into U+FFFD, which would
 * merge two values.
 */
export function sharedStoreKey(value: string): string {
  return (
    SHARED_KEY_PREFIX +
    value.replace(ESCAPED, (unit) => {
      if (unit === '%') return '%25';
      if (unit === ':') return '%3A';
      return `%u${unit.charCodeAt(0).toString(16).toUpperCase()}`;
    })
  );
}
