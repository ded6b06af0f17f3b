/**
 * One model call of a loop (MW-325): an InvokeModelStage invoke whose state
 * binding is the call's own model state, and the result the loop goes on
 * with. The reference agent's turn loop hands the invoke's events to its
 * relay, so no generator of the agent's sits between the two invokes on a
 * model event; {@link callModel} drives the same call with a generator of
 * its own, for a framework's own loop.
 */
import type { MiddlewareRegistry, Terminal } from '../../core/index';
import { describeValue } from '../../util/describe-value';
import { isObject } from '../../util/is-object';
import { invalidParts } from '../errors';
import { createModelContext, type ModelContextParts } from '../session/history';
import { modelTerminal } from '../model/model-terminal';
import type { Message, ToolUseBlock } from '../types/message';
import type { StopReason, Usage } from '../types/model';
import type { InvokeModelContext, InvokeModelEvent, ModelResultEvent } from '../types/stages';
import { InvokeModelStage } from '../stages';
import { freezeResultEvent, frozenCopy } from '../values/freeze';

/** What {@link callModel} builds the InvokeModelStage context from: those of `createModelContext`, with the model state required. */
export interface ModelCallParts extends ModelContextParts {
  /** The model state the call starts from: the terminal's draft, shown to handlers read-only. */
  readonly modelState: Readonly<Record<string, unknown>>;
}

/** Options of {@link callModel}. */
export interface CallModelOptions {
  /** Aborts the call: passed to the invoke, and by it to the model. */
  readonly signal?: AbortSignal | undefined;
  /** The InvokeModelStage terminal (default `modelTerminal`, which streams `context.model`). */
  readonly terminal?: Terminal<InvokeModelContext, InvokeModelEvent, Record<string, unknown>> | undefined;
}

/** What one model call came to, as a loop goes on with it (frozen). */
export interface ModelCallResult {
  /** The assistant message of the invoke's result, after the Output handlers: what the history takes. */
  readonly message: Message;
  /** Why the model stopped. */
  readonly stopReason: StopReason;
  /** The call's token counts (sum them with `addUsage`). */
  readonly usage: Usage;
  /** The tool uses the loop runs next: those of `message`, in message order, when `stopReason` is `'toolUse'`; else none. */
  readonly toolUses: readonly ToolUseBlock[];
  /** The model state after the call: the one the terminal wrote when the whole chain succeeded, else the one it started from. */
  readonly modelState: Readonly<Record<string, unknown>>;
}

const NO_TOOL_USES: readonly ToolUseBlock[] = Object.freeze([]);

/**
 * One InvokeModelStage invoke; its (Output-transformed) result is what the
 * loop goes on with. The model's draft starts from the call's model state,
 * and only a successful chain writes it back. Drain {@link ModelCall.events}
 * passing each event through {@link ModelCall.observe}, then read
 * {@link ModelCall.result}.
 */
export class ModelCall {
  /** The invoke's events, unobserved. */
  readonly events: AsyncGenerator<InvokeModelEvent, void, undefined>;
  private readonly before: Readonly<Record<string, unknown>>;
  private written: Record<string, unknown> | undefined;
  private last: InvokeModelEvent | undefined;

  /** Starts nothing: the invoke runs as {@link ModelCall.events} is pulled. */
  constructor(registry: MiddlewareRegistry, parts: ModelCallParts, options: CallModelOptions = {}) {
    const before = parts.modelState;
    this.before = before;
    const { signal, terminal = modelTerminal } = options;
    // The call's own state, so a handler's change to another copy of it never reaches the model.
    const state = { get: () => before, set: (next: Record<string, unknown>) => void (this.written = next) };
    // Literals rather than a spread of an optional part: V8 copies a spread object on its slow path.
    this.events = registry.invoke(
      InvokeModelStage,
      createModelContext(parts),
      terminal,
      signal === undefined ? { state } : { signal, state },
    );
  }

  /** Keeps a frozen copy of the event as the last one seen (copied before anyone downstream can change it), and returns the event. */
  readonly observe = (event: InvokeModelEvent): InvokeModelEvent => {
    this.last = freezeResultEvent(event) as InvokeModelEvent;
    return event;
  };

  /** The model state after the call: the chain's when it succeeded, else the one it started from. */
  get modelState(): Readonly<Record<string, unknown>> {
    return this.written ?? this.before;
  }

  /** The call's result, once the invoke has ended: its last event, the stage's result. */
  result(): ModelCallResult {
    const result = this.last as ModelResultEvent;
    const message = frozenCopy(result.message, 'message');
    const toolUses =
      result.stopReason === 'toolUse'
        ? Object.freeze(message.content.filter((block): block is ToolUseBlock => block.type === 'toolUse'))
        : NO_TOOL_USES;
    return Object.freeze({ message, stopReason: result.stopReason, usage: result.usage, toolUses, modelState: this.modelState });
  }
}

/**
 * Makes one model call through InvokeModelStage, as the reference agent
 * makes each of its own: the context `createModelContext(parts)` builds, the
 * terminal (default `modelTerminal`) drafting `parts.modelState`. Yields
 * every event of the invoke, the `modelResult` last, each result a frozen
 * copy; returns the result the loop goes on with.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `invokeModel`) at once when `parts` is not what
 *   `createModelContext` takes or `parts.modelState` is not an object; what the invoke throws, as thrown.
 * @example
 * ```ts
 * async function* turn(history: History, modelState: Record<string, unknown>) {
 *   const parts = { model, messages: history.messages, systemPrompt, toolSpecs, modelState, invocationState: {} };
 *   const result = yield* callModel(registry, parts);
 *   history.append(result.message);
 *   return result; // its message, stopReason, usage, toolUses and modelState
 * }
 * ```
 */
export function callModel(
  registry: MiddlewareRegistry,
  parts: ModelCallParts,
  options: CallModelOptions = {},
): AsyncGenerator<InvokeModelEvent, ModelCallResult, undefined> {
  if (!isObject(parts) || !isObject(parts.modelState))
    throw invalidParts(
      'callModel(registry, parts)',
      `parts must be { model, messages, systemPrompt, toolSpecs, modelState: object, invocationState }, got ${describeValue(parts)}`,
    );
  return drive(new ModelCall(registry, parts, options));
}

/** The call's events, observed, then its result. */
async function* drive(call: ModelCall): AsyncGenerator<InvokeModelEvent, ModelCallResult, undefined> {
  for await (const event of call.events) yield call.observe(event);
  return call.result();
}
