import type { Next, HandlerCall } from '../core/index';
import type { StageWrap } from './wrap-types';
import { runAttempts } from './attempts';
import { resolveStream, type AttemptBoundaryEvent, type AttemptStream, type LiveStream } from './attempt-stream';
import { invalidOption, middlewareFailed } from './errors';
import { checkOptionsObject, positiveInteger } from './options';
import { named } from './named';

/** Options of {@link regenerate}. */
export interface RegenerateOptions<TContext, TEvent> {
  /**
   * Validates an attempt's result (its last event; only called when the stage's
   * `isResult` accepts it). Throw, or return a rejecting promise, to reject it.
   */
  readonly check: (result: TEvent, context: TContext, attempt: number) => unknown;
  /** The context of the next attempt, from the rejected attempt's context and the error `check` threw. */
  readonly feedback: (context: TContext, error: unknown, attempt: number) => TContext | PromiseLike<TContext>;
  /** Attempts in all, the first included. Default 5. */
  readonly maxAttempts?: number;
  /**
   * After `maxAttempts` rejections: `true` (default) throws `ERR_MIDDLEWARE_FAILED`;
   * `false` accepts the last result as it is.
   */
  readonly critical?: boolean;
  /** How a rejected attempt's events reach the consumer (see {@link AttemptStream}). Default `'commit'`. */
  readonly stream?: AttemptStream;
}

/**
 * Validates the result and, when `check` rejects it, runs the inner chain
 * again with a context built by `feedback` (the model sees what was wrong).
 * Errors thrown by the inner chain are not regenerated: they pass through
 * unchanged (put `retry` outside for those).
 *
 * @throws MiddlewareError `ERR_MIDDLEWARE_FAILED` when a critical regenerate
 *   runs out of attempts; its `cause` is an `AggregateError` whose `errors`
 *   are every rejection, first attempt first.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` at once for bad options.
 * @example
 * ```ts
 * registry.add(ModelStage.Wrap, regenerate({
 *   check: (result) => JSON.parse(result.text),
 *   feedback: (context, error) => ({ ...context, prompt: `${context.prompt}\nYour answer was not JSON: ${error}` }),
 * }));
 * ```
 */
export function regenerate<TContext, TEvent>(
  options: RegenerateOptions<TContext, TEvent> & { readonly stream?: 'commit' },
): StageWrap<TContext, TEvent, never>;
/** With `stream: 'live'`: fits stages whose event type admits {@link AttemptBoundaryEvent}. */
export function regenerate<TContext, TEvent>(
  options: RegenerateOptions<TContext, TEvent> & { readonly stream: 'live' },
): StageWrap<TContext, TEvent, AttemptBoundaryEvent>;
/** With a boundary factory: fits stages whose event type admits what it returns. */
export function regenerate<TContext, TEvent, TBoundary>(
  options: RegenerateOptions<TContext, TEvent> & { readonly stream: LiveStream<TBoundary> },
): StageWrap<TContext, TEvent, TBoundary>;
export function regenerate<TContext, TEvent>(options: RegenerateOptions<TContext, TEvent>): StageWrap<TContext, TEvent, unknown> {
  checkOptionsObject('regenerate', options, '{ check, feedback, maxAttempts?, critical?, stream? }');
  const { check, feedback } = options;
  if (typeof check !== 'function')
    throw invalidOption('regenerate', 'options.check must be a function that throws when the result is not acceptable', check);
  if (typeof feedback !== 'function')
    throw invalidOption('regenerate', 'options.feedback must be a function (context, error) => next context', feedback);
  const maxAttempts = positiveInteger('regenerate', 'options.maxAttempts', options.maxAttempts ?? 5);
  const critical = options.critical ?? true;
  const stream = resolveStream(options.stream, 'regenerate');
  const handler = async function* regenerate(context: TContext, next: Next<TContext, TEvent>, run: HandlerCall) {
    const rejections: unknown[] = [];
    yield* runAttempts<TContext, TEvent>({
      context,
      next,
      run,
      stream,
      accept: check,
      recover: async ({ error, attempt, context: rejectedContext, rejected }) => {
        if (!rejected) throw error;
        rejections.push(error);
        if (attempt < maxAttempts) return { retry: await feedback(rejectedContext, error, attempt) };
        if (!critical) return { accept: true };
        throw middlewareFailed(
          run,
          `check rejected all ${maxAttempts} attempt${maxAttempts === 1 ? '' : 's'}. Give feedback() more to go on, raise maxAttempts, or pass critical: false to accept the last result`,
          new AggregateError(rejections, `regenerate: ${rejections.length} rejected attempts`),
        );
      },
    });
  };
  return named('regenerate', handler);
}
