import type { HandlerCall } from '../core/index';
import { runAttempts } from './attempts';
import { resolveStream, type AttemptBoundaryEvent, type AttemptStream, type LiveStream } from './attempt-stream';
import { type AnyStageWrap } from './wrap-types';
import { invalidOption } from './errors';
import { checkOptionsObject, optionalFunction, optionalTimers, positiveInteger } from './options';
import { named } from './named';
import { isRetryableError, retryAfterMs } from './retryable';
import { systemTimers, type Timers } from '../util/timers';
import { sleep } from './sleep';
import { isObject } from '../util/is-object';

/** Exponential backoff: attempt n waits `min(maxMs, initialMs * factor^(n-1))`, jittered. */
export interface BackoffOptions {
  /** Delay before the second attempt, in ms. Default 200. */
  readonly initialMs?: number;
  /** Growth per attempt. Default 2. */
  readonly factor?: number;
  /** Upper bound of a delay before jitter, in ms. Default 10 000. */
  readonly maxMs?: number;
  /**
   * Fraction of each delay that is random, 0 to 1. Default 0.5: a delay `d`
   * becomes a value in `[d/2, d]`, so clients failing together do not retry together.
   */
  readonly jitter?: number;
}

/** What `onRetry` learns before each new attempt. */
export interface RetryInfo {
  /** The attempt that failed, counting from 1. */
  readonly attempt: number;
  /** Its error. */
  readonly error: unknown;
  /** How long retry waits before the next attempt, in ms. */
  readonly delayMs: number;
  /** The stage and handler. */
  readonly run: HandlerCall;
}

/** Options of {@link retry}. */
export interface RetryOptions {
  /** Attempts in all, the first included. Default 3. */
  readonly attempts?: number;
  /** Backoff between attempts: options, or a function of the failed attempt number returning ms (any length; `Infinity` waits until abort; 0 or less, or NaN, does not wait). */
  readonly backoff?: BackoffOptions | ((attempt: number, error: unknown) => number);
  /**
   * Whether an error is worth another attempt. Default {@link isRetryableError}: 408, 429,
   * 5xx, network and other status-less errors and `ERR_TIMEOUT` are retried; other 4xx and
   * the package's contract errors are not; an `isRetryable` boolean on the error wins.
   * `ERR_ABORTED` and the agent kit's interrupt signals are never retried.
   */
  readonly retryOn?: (error: unknown, attempt: number) => boolean;
  /**
   * The longest server-requested wait (`Retry-After`, `retry-after-ms`) honoured, in ms;
   * an error asking for longer is not retried. Default 60 000.
   */
  readonly maxRetryAfterMs?: number;
  /** Called before each wait; a throw ends the retries with that error. */
  readonly onRetry?: (info: RetryInfo) => void;
  /** How a failed attempt's events reach the consumer (see {@link AttemptStream}). Default `'commit'`. */
  readonly stream?: AttemptStream;
  /** Source of jitter in `[0, 1)`. Default `Math.random`. */
  readonly random?: () => number;
  /** Clock for the waits (`setTimeout` / `clearTimeout`) and, when present, for `Retry-After` dates (`wallClock`, else `Date.now()`). Default: the runtime's timers. */
  readonly timers?: Pick<Timers, 'setTimeout' | 'clearTimeout'> & Partial<Pick<Timers, 'wallClock'>>;
}

/** The backoff when `options.backoff` leaves a field out. */
const DEFAULT_BACKOFF = { initialMs: 200, factor: 2, maxMs: 10_000, jitter: 0.5 } as const;

/**
 * Runs the inner chain again after an error, with exponential backoff and
 * jitter. By default it retries only what may succeed next time (see
 * {@link isRetryableError}) and waits at least what the server asked for in
 * `Retry-After`. The waits end at once when the invoke's signal aborts.
 *
 * @throws The last attempt's error, unchanged, when every attempt failed,
 *   `retryOn` declined, or the server asked for a wait above `maxRetryAfterMs`;
 *   `ERR_ABORTED` when aborted during a wait.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` at once for bad options.
 * @example
 * ```ts
 * registry.add(ModelStage.Wrap, retry({ attempts: 4, backoff: { initialMs: 500 } }));
 * ```
 */
export function retry(options?: RetryOptions & { readonly stream?: 'commit' }): AnyStageWrap<never>;
/** With `stream: 'live'`: fits stages whose event type admits {@link AttemptBoundaryEvent}. */
export function retry(options: RetryOptions & { readonly stream: 'live' }): AnyStageWrap<AttemptBoundaryEvent>;
/** With a boundary factory: fits stages whose event type admits what it returns. */
export function retry<TBoundary>(options: RetryOptions & { readonly stream: LiveStream<TBoundary> }): AnyStageWrap<TBoundary>;
export function retry(options: RetryOptions = {}): AnyStageWrap<unknown> {
  checkOptionsObject('retry', options, '{ attempts?, backoff?, retryOn?, maxRetryAfterMs?, onRetry?, stream?, random?, timers? }');
  const attempts = positiveInteger('retry', 'options.attempts', options.attempts ?? 3);
  const delay = backoffFunction(options.backoff, optionalFunction('retry', 'random', options.random) ?? Math.random);
  const retryOn = optionalFunction('retry', 'retryOn', options.retryOn) ?? isRetryableError;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
  if (typeof maxRetryAfterMs !== 'number' || !(maxRetryAfterMs >= 0))
    throw invalidOption('retry', 'options.maxRetryAfterMs must be a number >= 0 (Infinity honours any wait)', maxRetryAfterMs);
  const stream = resolveStream(options.stream, 'retry');
  const timers = optionalTimers('retry', options.timers, ['setTimeout', 'clearTimeout']) ?? systemTimers;
  const wallClock = typeof timers.wallClock === 'function' ? timers.wallClock.bind(timers) : () => Date.now();
  const onRetry = optionalFunction('retry', 'onRetry', options.onRetry);
  const handler = async function* retry<TContext, TEvent>(
    context: TContext,
    next: (context?: TContext) => AsyncGenerator<TEvent, void, undefined>,
    run: HandlerCall,
  ) {
    yield* runAttempts<TContext, TEvent>({
      context,
      next,
      run,
      stream,
      recover: ({ error, attempt }) => {
        if (attempt >= attempts || !retryOn(error, attempt)) throw error;
        const requested = retryAfterMs(error, wallClock);
        // A server asking for a longer pause than allowed will refuse an earlier attempt too.
        if (requested !== undefined && requested > maxRetryAfterMs) throw error;
        const computed = delay(attempt, error);
        const delayMs = requested === undefined ? computed : Math.max(Number.isNaN(computed) ? 0 : computed, requested);
        onRetry?.({ attempt, error, delayMs, run });
        return { retry: context, wait: () => sleep(delayMs, run.signal, { stage: run.stage.name, handler: run.handler }, timers) };
      },
    });
  };
  return named('retry', handler);
}

/** The delay before the attempt after `attempt`, from the `backoff` option. */
function backoffFunction(backoff: RetryOptions['backoff'], random: () => number): (attempt: number, error: unknown) => number {
  if (typeof backoff === 'function') return (attempt, error) => Math.max(0, backoff(attempt, error));
  if (backoff !== undefined && !isObject(backoff)) {
    throw invalidOption('retry', 'options.backoff must be { initialMs, factor, maxMs, jitter } or a function', backoff);
  }
  const settings = { ...DEFAULT_BACKOFF, ...backoff };
  for (const key of ['initialMs', 'factor', 'maxMs'] as const) {
    const value = settings[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
      throw invalidOption('retry', `options.backoff.${key} must be a finite number >= 0`, value);
  }
  if (typeof settings.jitter !== 'number' || !(settings.jitter >= 0 && settings.jitter <= 1)) {
    throw invalidOption('retry', 'options.backoff.jitter must be a number from 0 to 1', settings.jitter);
  }
  return (attempt) => {
    const base = Math.min(settings.maxMs, settings.initialMs * settings.factor ** (attempt - 1));
    return base * (1 - settings.jitter + settings.jitter * random());
  };
}
