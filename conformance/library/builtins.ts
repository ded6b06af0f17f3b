/**
 * Built-in middleware a case can name as `{ "builtin": "<name>", "options": {...} }`.
 * Each entry turns the case's JSON options into a bundle to register, as
 * spec/README.md ("Built-in middleware in cases") states normatively.
 */
import type { AnyStage, Instrumentation, Middleware, WrapHandler } from '../../src/core/index';
import {
  cache,
  fallback,
  logging,
  LruStore,
  rateLimit,
  regenerate,
  retry,
  timeout,
  tracing,
  validate,
  type AttemptBoundaryInfo,
  type AttemptStream,
  type CacheEntry,
  type CacheOptions,
  type CacheStore,
  type RetryInfo,
  type RetryOptions,
} from '../../src/middleware/index';
import { objectSchema } from './chain-values';
import { recordingTracing, spanLine } from './recording-tracer';
import { errorText, userError, type Environment } from './script-environment';

/** Makes a bundle from a case's JSON options. */
export type BuiltinFactory = (options: Record<string, unknown>, run: BuiltinRun) => Middleware;

/** What a built-in learns about the case it runs in. */
export interface BuiltinRun {
  /** The case's main stage: the bundle registers on it. */
  readonly stage: AnyStage;
  /** The case's environment: built-ins that observe (tracing, logging) write into its trace. */
  readonly environment: Environment;
}

/** Every built-in a case may name, by name. */
export const builtins: ReadonlyMap<string, BuiltinFactory> = new Map<string, BuiltinFactory>([
  ['retry', (options, { stage, environment }) => wrapBundle('retry', stage, options, retry(retryOptions(options, environment) as never))],
  [
    'fallback',
    (options, { stage }) =>
      wrapBundle('fallback', stage, options, fallback(alternatives(options), { stream: stream(options.stream) } as never)),
  ],
  [
    'regenerate',
    (options, { stage, environment }) => wrapBundle('regenerate', stage, options, regenerate(regenerateOptions(options, environment))),
  ],
  ['timeout', (options, { stage }) => wrapBundle('timeout', stage, options, timeout(number(options.ms, 1_000)))],
  [
    'rateLimit',
    (options, { stage, environment }) =>
      wrapBundle(
        'rateLimit',
        stage,
        options,
        rateLimit(
          keyFunction(
            options.limiter === undefined ? withoutName(options) : sharedLimitOptions(options, environment),
            options,
            environment,
          ) as never,
        ),
      ),
  ],
  ['cache', (options, { stage, environment }) => wrapBundle('cache', stage, options, cache(cacheOptions(options, environment)))],
  [
    'validate',
    (options, { stage }) =>
      validate(stage as never, {
        ...(options.context === undefined ? {} : { context: objectSchema(options.context as never) }),
        ...(options.result === undefined ? {} : { result: objectSchema(options.result as never) }),
      }),
  ],
  ['tracing', (options, { environment }) => instrumentationBundle(recordedTracing(environment, options.api !== false))],
  [
    'logging',
    (_options, { environment }) =>
      instrumentationBundle(
        logging({
          logger: (record) =>
            environment.trace.push(
              `log:${record.event}${record.handler === undefined ? '' : ` ${record.handler}`}${record.attempt === undefined ? '' : `#${record.attempt}`}${record.error === undefined ? '' : ` error ${errorText(record.error)}`}`,
            ),
          now: () => 0,
        }),
      ),
  ],
]);

/** Registers an instrumentation (`tracing`, `logging`) as a bundle named after it. */
function instrumentationBundle(instrumentation: Instrumentation): Middleware {
  return { name: instrumentation.name, setup: (registrar) => void registrar.instrument(instrumentation) };
}

/** Registers one Wrap handler as a bundle named after the built-in; `"name"` in the options registers it under that name. */
function wrapBundle(name: string, stage: AnyStage, options: Record<string, unknown>, handler: unknown): Middleware {
  const addOptions = typeof options.name === 'string' ? { name: options.name } : undefined;
  return { name, setup: (registrar) => void registrar.add(stage.Wrap, handler as WrapHandler<unknown, unknown>, addOptions) };
}

/** The options without the registration's `"name"`, for a factory that takes the case's options as they are. */
function withoutName(options: Record<string, unknown>): Record<string, unknown> {
  const { name: _name, ...rest } = options;
  return rest;
}

function number(value: unknown, fallbackValue: number): number {
  return typeof value === 'number' ? value : fallbackValue;
}

/**
 * `"commit"` and `"live"` as in SPEC MW-081 / MW-082. JSON cannot hold the
 * default boundary's `error` object, so `"live"` cases use a boundary factory
 * building `{ "boundary": true, "failedAttempt", "nextAttempt", "error": <code or message> }`.
 */
function stream(value: unknown): AttemptStream | undefined {
  if (value === 'live') {
    return {
      mode: 'live',
      boundary: (info: AttemptBoundaryInfo) => ({
        boundary: true,
        failedAttempt: info.failedAttempt,
        nextAttempt: info.nextAttempt,
        error: errorText(info.error),
      }),
    };
  }
  return value as AttemptStream | undefined;
}

/**
 * `attempts`, `delayMs` (a constant backoff, default 0), `stream` and `maxRetryAfterMs` as the factory takes them;
 * `"retryOn": "always"` retries every error (the default classification otherwise);
 * `"recordWaits": true` records `retry <attempt> wait <delayMs>` before each wait and ends every wait at once,
 * with `"wallClock": <ms since the epoch>` as the clock `Retry-After` dates are measured against.
 */
function retryOptions(options: Record<string, unknown>, environment: Environment): RetryOptions {
  const recordWaits = options.recordWaits === true;
  const immediate = {
    setTimeout: (callback: () => void) => {
      queueMicrotask(callback);
    },
    clearTimeout: () => undefined,
    wallClock: () => number(options.wallClock, 0),
  };
  return {
    attempts: number(options.attempts, 3),
    backoff: () => number(options.delayMs, 0),
    stream: stream(options.stream) as AttemptStream,
    ...(options.retryOn === 'always' ? { retryOn: () => true } : {}),
    ...(options.maxRetryAfterMs === undefined ? {} : { maxRetryAfterMs: number(options.maxRetryAfterMs, 0) }),
    ...(recordWaits
      ? { timers: immediate, onRetry: (info: RetryInfo) => void environment.trace.push(`retry ${info.attempt} wait ${info.delayMs}`) }
      : {}),
  };
}

/**
 * `"keyFrom": "<field>"` becomes the key function `(context) => context[<field>]` (whatever the field holds),
 * `"keyThrows": "m"` the key function that throws the user error `Error("m")`.
 */
function keyFunction(
  rateLimitOptions: Record<string, unknown>,
  options: Record<string, unknown>,
  environment: Environment,
): Record<string, unknown> {
  const { keyFrom: _keyFrom, keyThrows: _keyThrows, ...rest } = rateLimitOptions;
  const { keyFrom, keyThrows } = options;
  if (typeof keyThrows === 'string') {
    return {
      ...rest,
      key: () => {
        throw userError(environment, keyThrows);
      },
    };
  }
  if (typeof keyFrom === 'string') return { ...rest, key: (context: Record<string, unknown>) => context[keyFrom] };
  return rest;
}

/** One answer of a scripted shared limiter (see {@link sharedLimitOptions}). */
type LimiterAnswer =
  'grant' | { readonly msBeforeNext: number } | { readonly fail: string } | { readonly abort: string; readonly then: LimiterAnswer };

/**
 * `{ "limiter": { "answers": [...] }, "key"?, "points"? }`: a shared limiter whose `consume` records
 * `consume <key> <points>` and gives the next answer (the last repeating): `"grant"` resolves,
 * `{ "msBeforeNext": n }` rejects with that spent answer, `{ "fail": "m" }` rejects with `Error("m")`,
 * `{ "abort": "r", "then": answer }` aborts the invoke's signal with reason `r`, then gives `answer`;
 * `reward` records `reward <key> <points>`. Waits are recorded as `wait <ms>` and end at once.
 */
function sharedLimitOptions(options: Record<string, unknown>, environment: Environment): Record<string, unknown> {
  const answers = (options.limiter as { answers: LimiterAnswer[] }).answers;
  let calls = 0;
  const answer = (given: LimiterAnswer): Promise<unknown> => {
    if (given === 'grant') return Promise.resolve({ remainingPoints: 0 });
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- rate-limiter-flexible refuses with this object, not an Error
    if ('msBeforeNext' in given) return Promise.reject({ msBeforeNext: given.msBeforeNext, remainingPoints: 0 });
    if ('fail' in given) return Promise.reject(userError(environment, given.fail));
    environment.controller?.abort(given.abort);
    return answer(given.then);
  };
  return {
    ...(options.key === undefined ? {} : { key: options.key }),
    ...(options.points === undefined ? {} : { points: options.points }),
    limiter: {
      consume: (key: string, points: number) => {
        environment.trace.push(`consume ${key} ${points}`);
        return answer(answers[Math.min(calls++, answers.length - 1)] as LimiterAnswer);
      },
      reward: (key: string, points: number) => void environment.trace.push(`reward ${key} ${points}`),
    },
    timers: {
      setTimeout: (callback: () => void, ms: number) => {
        environment.trace.push(`wait ${ms}`);
        queueMicrotask(callback);
      },
      clearTimeout: () => undefined,
    },
  };
}

/** `alternatives`: a context is used as it is; `{ "merge": {...} }` is a function alternative merging keys into the original context. */
function alternatives(options: Record<string, unknown>): unknown[] {
  return ((options.alternatives as unknown[] | undefined) ?? []).map((alternative) => {
    const merge = (alternative as { merge?: Record<string, unknown> } | null)?.merge;
    return merge === undefined ? alternative : (context: Record<string, unknown>) => ({ ...context, ...merge });
  });
}

/**
 * `key` names the context field used as the cache key; `store`: `"rejects"` (every method returns a promise
 * rejected with `Error("store down")`), `"hangs"` (every method returns a promise that never settles),
 * `"json"` (keeps each entry as JSON text, recording `store set <key> ttl <ttlMs>`) or
 * `{ "entries": { key: entry } }` (an in-memory store holding those entries); `"onError": true` records
 * `cache-error <operation> <key> <error>` for each store failure.
 */
function cacheOptions(options: Record<string, unknown>, environment: Environment): CacheOptions<Record<string, unknown>> {
  const field = String(options.key);
  return {
    key: (context) => {
      const value = context[field] as string | number | boolean | undefined;
      return value === undefined ? undefined : String(value);
    },
    ...(options.ttlMs === undefined ? {} : { ttlMs: number(options.ttlMs, 1) }),
    ...(options.store === undefined ? {} : { store: cacheStore(options.store, environment) }),
    ...(options.onError === true
      ? { onError: (error, info) => void environment.trace.push(`cache-error ${info.operation} ${info.key} ${errorText(error)}`) }
      : {}),
  };
}

/** The store a case names (see {@link cacheOptions}). */
function cacheStore(spec: unknown, environment: Environment): CacheStore {
  if (spec === 'json') {
    const saved = new Map<string, string>();
    return {
      get: async (key) => {
        const text = saved.get(key);
        return text === undefined ? undefined : (JSON.parse(text) as CacheEntry);
      },
      set: async (key, entry, ttlMs) => {
        environment.trace.push(`store set ${key} ttl ${String(ttlMs)}`);
        saved.set(key, JSON.stringify(entry));
      },
    };
  }
  if (spec === 'rejects') {
    const down = (): Promise<never> => Promise.reject(new Error('store down'));
    return { get: down, set: down, delete: down };
  }
  if (spec === 'hangs') {
    const never = (): Promise<never> => new Promise<never>(() => undefined);
    return { get: never, set: never, delete: never };
  }
  const store = new LruStore();
  for (const [key, entry] of Object.entries((spec as { entries?: Record<string, CacheEntry> }).entries ?? {})) store.set(key, entry);
  return store;
}

/**
 * `check` accepts a result whose `"ok"` is true and otherwise throws
 * `Error("rejected <attempt>")`, or, for a result whose `"interrupt"` is true, the user error
 * `Error("interrupted <attempt>")` made an interrupt signal (MW-083); `feedback` merges
 * `{ "feedback": "<message>" }` into the context.
 */
function regenerateOptions(options: Record<string, unknown>, environment: Environment) {
  return {
    check: (result: unknown, _context: unknown, attempt: number) => {
      if ((result as { interrupt?: unknown }).interrupt === true) throw userError(environment, `interrupted ${attempt}`, undefined, true);
      if ((result as { ok?: unknown }).ok !== true) throw new Error(`rejected ${attempt}`);
    },
    feedback: (context: unknown, error: unknown) => ({ ...(context as object), feedback: errorText(error) }),
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: number(options.maxAttempts, 5) }),
    ...(options.critical === undefined ? {} : { critical: options.critical === true }),
    ...(options.stream === undefined ? {} : { stream: stream(options.stream) }),
  } as never;
}

/** Tracing whose finished spans are written into the trace as `span:<name>[#<attempt>][ caller=<caller>] <- <parent>[ error][ exception]`; `"api": false` gives it the tracer alone. */
function recordedTracing(environment: Environment, withApi: boolean): Instrumentation {
  const { tracer, api } = recordingTracing((span) => environment.trace.push(spanLine(span)));
  return tracing(withApi ? { api, tracer } : { tracer });
}

/**
 * The factory for `name`.
 *
 * @throws Error naming the known built-ins when `name` is not one of them.
 */
export function builtin(name: string): BuiltinFactory {
  const factory = builtins.get(name);
  if (factory === undefined) {
    const known = [...builtins.keys()];
    throw new Error(`Unknown built-in middleware "${name}" in a conformance case. Known: ${known.join(', ')}.`);
  }
  return factory;
}
