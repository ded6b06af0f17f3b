import type { TerminalCall } from '../../core/index';
import { ModelStream } from './model-stream';
import type { InvokeModelContext, InvokeModelEvent } from '../types/stages';

/**
 * The terminal of InvokeModelStage: streams the model's events through and
 * ends with the assembled {@link ModelResultEvent} (frozen).
 *
 * Consecutive text (or reasoning) deltas form one block; a tool use's input
 * deltas are joined and parsed as JSON when the message ends (empty input is
 * `{}`; text that is not JSON is kept as the string, for the tool to reject).
 * A delta names its tool use by `toolUseId` (or by `index`, the tool use's
 * position in the message), so the deltas of parallel tool uses may
 * interleave; one naming neither extends the last block when it is a tool use.
 * A stream without `messageStop` ends with stop reason `'endTurn'`. When the
 * signal aborts while the model's `next()` is pending, the terminal stops
 * waiting at once and throws the signal's reason; the model's stream is
 * closed without waiting for it. The iterator it returns behaves as an async
 * generator would: nothing runs until the first `next()`, calls are answered
 * one at a time, and `return()` or `throw()` closes the model's stream.
 *
 * @throws MiddlewareError `ERR_INVALID_HANDLER` (from the first `next()`) when `model.stream` is not a function or
 *   does not return an async iterable; `ERR_INVALID_OPTIONS` (from the first `next()`, before the model is called)
 *   when the context's `systemPrompt` is not an array of blocks.
 * @example
 * ```ts
 * const events = registry.invoke(InvokeModelStage, createModelContext({ model, messages: [], systemPrompt, toolSpecs, invocationState: {} }), modelTerminal, { state: { get, set } });
 * ```
 */
export function modelTerminal(context: InvokeModelContext, run: TerminalCall<unknown>): AsyncGenerator<InvokeModelEvent, void, undefined> {
  return new ModelStream(context, run);
}
