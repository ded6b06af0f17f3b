/**
 * `checkFinalAnswer()`: a check of the run's final answer (MW-174). When
 * the model's final answer fails a check, only that model call is made
 * again, with the rejected answer and the error as feedback; the tools that
 * already ran are not called again, and the history gets only the answer
 * that passed.
 * (`regenerate` on AgentStreamStage, by contrast, replays the whole run.)
 */
import { resolveStream, type AttemptStream } from '../../middleware/attempt-stream';
import { runAttempts } from '../../middleware/attempts';
import { invalidOption, middlewareFailed } from '../../middleware/errors';
import { checkOptionsObject, optionalFunction, positiveInteger } from '../../middleware/options';
import { named } from '../../middleware/named';
import type { Next, HandlerCall } from '../../core/index';
import type { Message } from '../types/message';
import type { InvokeModelContext, InvokeModelEvent, ModelResultEvent } from '../types/stages';
import { isModelResult } from '../stages';

/** Options of {@link checkFinalAnswer}. */
export interface FinalAnswerCheckOptions {
  /** Checks a final answer (a model result that runs no tool); throw, or return a rejecting promise, to reject it. */
  readonly check: (message: Message, context: InvokeModelContext, attempt: number) => unknown;
  /** The message that tells the model why its answer was rejected. Default: {@link finalAnswerFeedback}. */
  readonly feedback?: (error: unknown, rejected: Message) => Message;
  /** Model calls in all for one final answer, the first included. Default 5. */
  readonly maxAttempts?: number;
  /** After `maxAttempts` rejections: `true` (default) throws `ERR_MIDDLEWARE_FAILED`; `false` keeps the last answer. */
  readonly critical?: boolean;
  /** How a rejected answer's events reach the consumer, as for `regenerate`. Default `'commit'`. */
  readonly stream?: AttemptStream;
}

/**
 * The default feedback: a user message `Your answer was rejected: <message>.
 * Answer again.`, `<message>` being the error's `message` when it is a
 * string, else `String(error)`.
 */
export function finalAnswerFeedback(error: unknown): Message {
  const message =
    typeof (error as { message?: unknown } | null)?.message === 'string' ? (error as { message: string }).message : String(error);
  return { role: 'user', content: [{ type: 'text', text: `Your answer was rejected: ${message}. Answer again.` }] };
}

/** True for a model result after which the loop runs no tool: the turn's answer is final. */
function isFinal(result: ModelResultEvent): boolean {
  return result.stopReason !== 'toolUse' || !result.message.content.some((block) => block.type === 'toolUse');
}

/**
 * An InvokeModelStage Wrap handler named `checkFinalAnswer`. A model result
 * that asks for tools passes untouched; a final one is checked, and when the
 * check throws, the model is called again (through the layers inside this
 * handler) with the context's messages followed by the rejected answer and
 * the feedback message. Only the answer that passes (or, not critical, the
 * last one) is the call's result, so it alone enters the history.
 *
 * @throws MiddlewareError `ERR_MIDDLEWARE_FAILED` when a critical check rejects all `maxAttempts` answers (every
 *   rejection in an `AggregateError` as the cause); `ERR_INVALID_OPTIONS` (`handler: 'checkFinalAnswer'`) at once for bad options.
 * @example
 * ```ts
 * const textOf = (message: Message): string => message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
 * registry.add(InvokeModelStage.Wrap, checkFinalAnswer({ check: (message) => JSON.parse(textOf(message)) }));
 * ```
 */
export function checkFinalAnswer(
  options: FinalAnswerCheckOptions,
): (
  context: InvokeModelContext,
  next: Next<InvokeModelContext, InvokeModelEvent>,
  run: HandlerCall,
) => AsyncGenerator<InvokeModelEvent, void, undefined> {
  checkOptionsObject('checkFinalAnswer', options, '{ check, feedback?, maxAttempts?, critical?, stream? }');
  const { check } = options;
  if (typeof check !== 'function')
    throw invalidOption('checkFinalAnswer', 'options.check must be a function that throws when the answer is not acceptable', check);
  const feedback = optionalFunction('checkFinalAnswer', 'feedback', options.feedback) ?? finalAnswerFeedback;
  const maxAttempts = positiveInteger('checkFinalAnswer', 'options.maxAttempts', options.maxAttempts ?? 5);
  const critical = options.critical ?? true;
  if (typeof critical !== 'boolean') throw invalidOption('checkFinalAnswer', 'options.critical must be a boolean', critical);
  const stream = resolveStream(options.stream, 'checkFinalAnswer');
  return named(
    'checkFinalAnswer',
    async function* (context: InvokeModelContext, next: Next<InvokeModelContext, InvokeModelEvent>, run: HandlerCall) {
      const rejections: unknown[] = [];
      let rejected: Message | undefined;
      yield* runAttempts<InvokeModelContext, InvokeModelEvent>({
        context,
        next,
        run,
        stream,
        accept: async (result, attemptContext, attempt) => {
          if (!isModelResult(result) || !isFinal(result)) return;
          rejected = result.message;
          await check(result.message, attemptContext, attempt);
        },
        recover: ({ error, attempt, context: rejectedContext, rejected: wasRejected }) => {
          if (!wasRejected) throw error;
          rejections.push(error);
          if (attempt < maxAttempts)
            return {
              retry: {
                ...rejectedContext,
                messages: [...rejectedContext.messages, rejected as Message, feedback(error, rejected as Message)],
              },
            };
          if (!critical) return { accept: true };
          throw middlewareFailed(
            run,
            `check rejected all ${maxAttempts} final answer${maxAttempts === 1 ? '' : 's'}. Give the model more to go on in feedback(), raise maxAttempts, or pass critical: false to keep the last answer`,
            new AggregateError(rejections, `checkFinalAnswer: ${rejections.length} rejected answers`),
          );
        },
      });
    },
  );
}
