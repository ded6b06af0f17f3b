/**
 * `afterToolCall()`: hooks that each return some fields of a tool result,
 * composed as a list where a later hook overrides an earlier one field by
 * field (MW-173). Output handlers alone cannot say it simply: the first
 * registered transforms last, so it would win. Each handler `afterToolCall` makes leaves alone the fields a
 * handler registered after it already set.
 */
import { MiddlewareResult } from '../../core/index';
import type { HandlerCall, OutputHandler } from '../../core/index';
import { invalidOption } from '../../middleware/errors';
import type { JsonBlock, TextBlock } from '../types/message';
import type { ToolResultEvent } from '../types/stages';

/** The fields of a tool result an `afterToolCall` hook may set (each left out, or `undefined`, keeps what is there). */
export interface ToolResultPatch {
  /** The content the model reads. */
  readonly content?: readonly (TextBlock | JsonBlock)[] | undefined;
  /** Whether the call failed. */
  readonly status?: 'success' | 'error' | undefined;
  /** True ends the run after this turn (MW-171). */
  readonly terminate?: boolean | undefined;
  /** Data for the application beside the content, kept in the history, never sent to the model (MW-344). */
  readonly details?: unknown;
}

/**
 * What an `afterToolCall` hook sees (the tool's name is `result.toolResult.name`; `call.signal` aborts when the run
 * is cancelled, so a hook that waits on I/O can stop) and returns.
 */
export type AfterToolCallHook = (
  result: ToolResultEvent,
  call: HandlerCall,
) => ToolResultPatch | undefined | PromiseLike<ToolResultPatch | undefined>;

/** Which patch fields handlers transforming earlier (registered later) set, carried on the result they made. */
const PATCHED: unique symbol = Symbol.for('staged-middleware.agent.patched-fields') as never;

const FIELDS = ['content', 'status', 'terminate', 'details'] as const;

/**
 * An ExecuteToolStage Output handler, named after `hook`, that applies the
 * fields `hook` returns to the tool result, except those a handler made by
 * `afterToolCall` and registered after it already set: register the hooks in
 * list order, and a later one overrides an earlier one field by field.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`handler: 'afterToolCall'`) when `hook` is not a function.
 * @example
 * ```ts
 * // In list order: the later hook wins `content`, the earlier one's `status` stays.
 * registry.add(ExecuteToolStage.Output, afterToolCall(function markFailed() { return { status: 'error' }; }));
 * registry.add(ExecuteToolStage.Output, afterToolCall(function hideDetails() { return { content: [{ type: 'text', text: 'See the audit log.' }] }; }));
 * ```
 */
export function afterToolCall(hook: AfterToolCallHook): OutputHandler<ToolResultEvent> {
  if (typeof hook !== 'function')
    throw invalidOption(
      'afterToolCall',
      'the hook must be a function (result) => { content?, status?, terminate?, details? } | undefined',
      hook,
    );
  const handler = async (result: MiddlewareResult<ToolResultEvent>, run: HandlerCall): Promise<MiddlewareResult<ToolResultEvent>> => {
    const patch = await hook(result.value, run);
    if (patch === undefined) return result;
    const taken = (result.value as { readonly [PATCHED]?: readonly string[] })[PATCHED] ?? [];
    const applied = FIELDS.filter((field) => patch[field] !== undefined && !taken.includes(field));
    const { toolResult } = result.value;
    const next: Record<string, unknown> = {
      ...result.value,
      toolResult: {
        ...toolResult,
        ...(applied.includes('content') ? { content: patch.content } : {}),
        ...(applied.includes('status') ? { status: patch.status } : {}),
        ...(applied.includes('details') ? { details: patch.details } : {}),
      },
      ...(applied.includes('terminate') ? { terminate: patch.terminate } : {}),
    };
    const patched = [...new Set([...taken, ...FIELDS.filter((field) => patch[field] !== undefined)])];
    Object.defineProperty(next, PATCHED, { value: Object.freeze(patched), enumerable: false });
    // The core freezes what replace() is given (the thrown `error`, an instance, stays as it is).
    return result.replace(next as unknown as ToolResultEvent);
  };
  Object.defineProperty(handler, 'name', { value: hook.name.length > 0 ? hook.name : 'afterToolCall', configurable: true });
  return handler;
}
