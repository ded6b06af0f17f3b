/**
 * Errors as answers: a failing middleware or tool need not fail the run. A
 * Wrap handler turns an error of the layers inside it into the stage's
 * result, so a throwing guard becomes the tool's answer and a failed model
 * call the agent's reply, and the run goes on (MW-129, MW-130); only an
 * error marked critical, a failure no answer may hide, still rejects.
 */
import { named } from '../../middleware/named';
import { MiddlewareError } from '../../core/index';
import type { Next, HandlerCall } from '../../core/index';
import { droppedResult, invalidAnswerOption } from '../errors';
import { frozenCopy } from '../values/freeze';
import { InterruptSignal } from '../session/interrupts';
import type {
  AgentResultEvent,
  AgentStreamContext,
  ExecuteToolContext,
  InvokeModelContext,
  ModelResultEvent,
  ToolResultEvent,
} from '../types/stages';
import { toolFailure } from './tool-terminal';
import { ZERO_USAGE } from '../setup/usage';
import { thrownText } from '../values/value-walk';
import { isObject } from '../../util/is-object';

/** Options of {@link errorsAsAnswers}. */
export interface ErrorsAsAnswersOptions<TContext, TResult> {
  /** The result that answers in place of the error (for the standard stages: {@link toolErrorAnswer}, {@link modelErrorAnswer}). */
  readonly toResult: (error: unknown, context: TContext) => TResult | PromiseLike<TResult>;
  /** True for an error that must still reject the invoke (a guard that must stop the run when it breaks, say). Default: none. */
  readonly critical?: (error: unknown, context: TContext) => boolean;
}

/** A Wrap handler of a stage with context `TContext` and events `TEvent`; `NoInfer` lets the stage alone decide `TEvent`. */
export type AnswerWrap<TContext, TEvent> = (
  context: TContext,
  next: Next<TContext, TEvent>,
  run: HandlerCall,
) => AsyncGenerator<NoInfer<TEvent>, void, undefined>;

/**
 * A Wrap handler, named `errorsAsAnswers`, that forwards the events of the
 * layers inside it and, when they throw, yields `toResult(error, context)` as
 * the stage's result instead. When they end without a result (a handler
 * dropped it), it answers for them with an `ERR_NO_RESULT` error. Aborts and
 * interrupt signals always pass through, and so do errors `critical` picks.
 * It catches only what is inside it: register it outermost (a low `order`).
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` at once when `toResult` is not a function or `critical` is given and is not one.
 * @example
 * ```ts
 * registry.add(ExecuteToolStage.Wrap, errorsAsAnswers({ toResult: toolErrorAnswer }), { order: -100 });
 * registry.add(InvokeModelStage.Wrap, errorsAsAnswers({ toResult: modelErrorAnswer, critical: (error) => error instanceof TypeError }), { order: -100 });
 * ```
 */
export function errorsAsAnswers<TContext, TEvent>(
  options: ErrorsAsAnswersOptions<TContext, NoInfer<TEvent>>,
): AnswerWrap<TContext, TEvent> {
  const { toResult, critical } = readOptions(options);
  // Named at run time: a bundler renames a function whose name is taken in the bundle's scope (MW-097).
  return named(
    'errorsAsAnswers',
    async function* errorsAsAnswers(
      context: TContext,
      next: Next<TContext, TEvent>,
      run: HandlerCall,
    ): AsyncGenerator<TEvent, void, undefined> {
      let last: unknown;
      let pulled = false;
      let failure: { readonly error: unknown } | undefined;
      try {
        for await (const event of next()) {
          last = event;
          pulled = true;
          yield event;
        }
      } catch (error) {
        failure = { error };
      }
      if (failure === undefined) {
        const { isResult } = run.stage;
        if (pulled && (isResult === undefined || isResult(last))) return;
        failure = { error: droppedResult(run.stage.name, run.handler) };
      }
      const { error } = failure;
      if (run.signal.aborted || isAbort(error) || InterruptSignal.isInstance(error) || critical?.(error, context) === true) throw error;
      yield (await toResult(error, context)) as TEvent;
    },
  );
}

/**
 * The answer of a tool call that failed (frozen): the error result the tool
 * terminal gives a tool that throws, `Tool "<name>" failed: <message>`, with
 * the error kept in `error` so Output handlers see it.
 *
 * @example
 * ```ts
 * registry.add(ExecuteToolStage.Wrap, errorsAsAnswers({ toResult: toolErrorAnswer }));
 * ```
 */
export function toolErrorAnswer(error: unknown, context: ExecuteToolContext): ToolResultEvent {
  return toolFailure(context.toolUse, error);
}

/**
 * The answer of a model call that failed (frozen): an assistant message whose
 * text is the error's message, stop reason `endTurn`, no tokens. The run
 * ends with it when the model asked for nothing else.
 *
 * @example
 * ```ts
 * registry.add(InvokeModelStage.Wrap, errorsAsAnswers({ toResult: modelErrorAnswer }));
 * ```
 */
export function modelErrorAnswer(error: unknown, _context: InvokeModelContext): ModelResultEvent {
  return frozenCopy({
    type: 'modelResult',
    message: { role: 'assistant', content: [{ type: 'text', text: thrownText(error) }] },
    stopReason: 'endTurn',
    usage: ZERO_USAGE,
  } as const);
}

/**
 * The answer of a run that failed (frozen): an agent result whose message is
 * an assistant message with the error's message as its text, stop reason
 * `endTurn`, no interrupts, no tokens. Registered on `AgentStreamStage.Wrap`
 * inside `errorsAsAnswers`, it answers for the whole run, and the agent keeps
 * its history as it was before the run: neither the input nor the answer is
 * in it (MW-346).
 *
 * @example
 * ```ts
 * registry.add(AgentStreamStage.Wrap, errorsAsAnswers({ toResult: agentErrorAnswer }), { order: -100 });
 * ```
 */
export function agentErrorAnswer(error: unknown, _context: AgentStreamContext): AgentResultEvent {
  return frozenCopy({
    type: 'agentResult',
    stopReason: 'endTurn',
    message: { role: 'assistant', content: [{ type: 'text', text: thrownText(error) }] },
    interrupts: [],
    usage: ZERO_USAGE,
  } as const);
}

/** The options, checked now rather than when an error comes. */
function readOptions<TContext, TResult>(options: ErrorsAsAnswersOptions<TContext, TResult>): ErrorsAsAnswersOptions<TContext, TResult> {
  if (!isObject(options)) throw invalidAnswerOption('options must be { toResult(error, context), critical?(error, context) }', options);
  const { toResult, critical } = options;
  if (typeof toResult !== 'function')
    throw invalidAnswerOption(
      'options.toResult must be a function (error, context) => the result that answers in place of the error',
      toResult,
    );
  if (critical !== undefined && typeof critical !== 'function')
    throw invalidAnswerOption('options.critical must be a function (error, context) => boolean', critical);
  return critical === undefined ? { toResult } : { toResult, critical };
}

/** True for an `ERR_ABORTED` error of any copy of the package. */
function isAbort(error: unknown): boolean {
  return MiddlewareError.isInstance(error) && error.code === 'ERR_ABORTED';
}
