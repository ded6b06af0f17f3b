import type { Next, HandlerCall } from '../core/index';
import { runAttempts } from './attempts';
import { resolveStream, type AttemptBoundaryEvent, type AttemptStream, type LiveStream } from './attempt-stream';
import { type ContextWrap } from './wrap-types';
import { invalidOption } from './errors';
import { checkOptionsObject, optionalFunction } from './options';
import { named } from './named';

/** One alternative: a context, or a function of the original context returning one. */
export type Alternative<TContext> = TContext | ((context: TContext) => TContext);

/** Options of {@link fallback}. */
export interface FallbackOptions {
  /** Whether an error moves on to the next alternative. Default: every error (`ERR_ABORTED` and interrupt signals never do). */
  readonly fallbackOn?: (error: unknown, attempt: number) => boolean;
  /** How a failed attempt's events reach the consumer (see {@link AttemptStream}). Default `'commit'`. */
  readonly stream?: AttemptStream;
}

/**
 * On an error, runs the inner chain again with each alternative context in
 * turn (another model, say). A function alternative is called with the
 * original context, so it can change one field: `(context) => ({ ...context, model: 'small' })`.
 * A function is always called, never passed on as a context.
 *
 * @throws The last attempt's error, unchanged, when every alternative failed
 *   or `fallbackOn` declined.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` at once when `alternatives` is not an array.
 * @example
 * ```ts
 * registry.add(ModelStage.Wrap, fallback([(context) => ({ ...context, model: 'backup-model' })]));
 * ```
 */
export function fallback<TContext>(
  alternatives: readonly Alternative<TContext>[],
  options?: FallbackOptions & { readonly stream?: 'commit' },
): ContextWrap<TContext, never>;
/** With `stream: 'live'`: fits stages whose event type admits {@link AttemptBoundaryEvent}. */
export function fallback<TContext>(
  alternatives: readonly Alternative<TContext>[],
  options: FallbackOptions & { readonly stream: 'live' },
): ContextWrap<TContext, AttemptBoundaryEvent>;
/** With a boundary factory: fits stages whose event type admits what it returns. */
export function fallback<TContext, TBoundary>(
  alternatives: readonly Alternative<TContext>[],
  options: FallbackOptions & { readonly stream: LiveStream<TBoundary> },
): ContextWrap<TContext, TBoundary>;
export function fallback<TContext>(
  alternatives: readonly Alternative<TContext>[],
  options: FallbackOptions = {},
): ContextWrap<TContext, unknown> {
  const given: unknown = alternatives;
  if (!Array.isArray(given))
    throw invalidOption('fallback', 'alternatives must be an array of contexts or functions of the context', alternatives);
  const list = [...alternatives];
  checkOptionsObject('fallback', options, '{ fallbackOn?, stream? }');
  const fallbackOn = optionalFunction('fallback', 'fallbackOn', options.fallbackOn) ?? (() => true);
  const stream = resolveStream(options.stream, 'fallback');
  const handler = async function* fallback<TEvent>(context: TContext, next: Next<TContext, TEvent>, run: HandlerCall) {
    yield* runAttempts<TContext, TEvent>({
      context,
      next,
      run,
      stream,
      recover: ({ error, attempt }) => {
        // Attempt n ran alternative n - 1 (attempt 1 ran the original context).
        if (attempt > list.length || !fallbackOn(error, attempt)) throw error;
        const alternative = list[attempt - 1] as Alternative<TContext>;
        return { retry: typeof alternative === 'function' ? (alternative as (context: TContext) => TContext)(context) : alternative };
      },
    });
  };
  return named('fallback', handler);
}
