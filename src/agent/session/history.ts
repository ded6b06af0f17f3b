import { describeValue } from '../../util/describe-value';
import { toSystemBlocks, type SystemPrompt } from '../../core/index';
import { invalidParts } from '../errors';
import { frozenCopy, NONE } from '../values/freeze';
import { appendedMessages } from '../values/checked-messages';
import type { Message } from '../types/message';
import type { Model } from '../types/model';
import type { ToolChoice, ToolSpec } from '../types/tool';
import type { InvokeModelContext, MiddlewareModelCaller } from '../types/stages';
import type { AgentView } from '../types/view';
import { isObject } from '../../util/is-object';

/**
 * The agent's conversation: a frozen array of frozen messages, replaced (never
 * changed) on every append.
 *
 * Why a plain copy rather than an immer recipe over the array: an immer push
 * re-freezes the whole array (about 10 ms per append at 100,000 messages,
 * against about 1 ms for a copy), while each message needs freezing only
 * once, when it enters. Why replace rather than push: every context handed
 * out keeps the array it was given, so a context is a snapshot for free, and
 * undoing a run is putting the old array back. Why the copy waits for the
 * next read (MW-145): the appends of a turn (the model's answer, the tool
 * results, a decision's messages) then cost one copy between them, not one
 * each, and a message appended is still copied and frozen at once, so an
 * append that throws leaves the history as it was. Why the appends go to a
 * plain array of the history's own: V8 copies a frozen array fast only
 * whole, so a copy of the frozen array with messages after it grows its
 * result as it goes, where a plain array that already holds them is copied
 * in one piece, in half the time and with half the garbage (at 10,000
 * messages, about 10 µs against 20 to 25 µs a read). That array is made at
 * the first append, so a history that is only read holds none.
 *
 * @example
 * ```ts
 * const history = new History();
 * history.append({ role: 'user', content: [{ type: 'text', text: 'Hi' }] });
 * const context = createModelContext({ model, messages: history.messages, systemPrompt: undefined, toolSpecs: [], invocationState: {} });
 * ```
 */
export class History {
  private current: readonly Message[];
  /**
   * A plain array of the messages of `current` followed by those appended since (each a frozen copy), in order;
   * undefined until the first append after the history was made, replaced or restored.
   */
  private spine: Message[] | undefined;

  /**
   * Starts from `messages`, copied and frozen once; a frozen array (such as
   * another history's `messages`) is taken as it is, so starting a history from
   * another one costs nothing.
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `messages` is not an array or cannot be copied (see {@link frozenCopy}).
   */
  constructor(messages: readonly Message[] = []) {
    if (!Array.isArray(messages))
      throw invalidParts('new History(messages)', `messages must be an array of messages, got ${describeValue(messages)}`);
    this.current = frozenCopy(messages, 'messages');
    this.spine = undefined;
  }

  /** The messages: a frozen array, shared with every context built from it; the same array until the next change. */
  get messages(): readonly Message[] {
    const { spine, current } = this;
    if (spine !== undefined && spine.length > current.length) this.current = appendedMessages(current, spine);
    return this.current;
  }

  /**
   * Appends messages, each copied and frozen once as it enters.
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` for a message that cannot be copied (see {@link frozenCopy}); the
   *   history is then as it was.
   */
  append(...messages: readonly Message[]): void {
    if (messages.length === 0) return;
    const copies = messages.map((message) => frozenCopy(message, 'message'));
    let { spine } = this;
    if (spine === undefined) this.spine = spine = [...this.current];
    for (const copy of copies) spine.push(copy);
  }

  /**
   * Replaces the whole history (context compression, MW-164): a message kept
   * from before stays the same object, a new one is copied and frozen once.
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` for a message that cannot be copied (see {@link frozenCopy}).
   */
  replace(messages: readonly Message[]): void {
    // Each message on its own: a frozen array may hold a new message that is not frozen yet.
    this.current = Object.freeze(messages.map((message) => frozenCopy(message, 'message')));
    this.spine = undefined;
  }

  /** Puts back an array this history returned earlier (undoing what came after it). */
  restore(messages: readonly Message[]): void {
    this.current = messages;
    this.spine = undefined;
  }
}

/** What {@link createModelContext} builds a context from. */
export interface ModelContextParts {
  /** The model. */
  readonly model: Model;
  /** The history's messages (a frozen array, as {@link History.messages} returns). */
  readonly messages: readonly Message[];
  /** The system prompt in either form. */
  readonly systemPrompt: SystemPrompt | undefined;
  /** Tool specs (frozen arrays are taken as they are). */
  readonly toolSpecs: readonly ToolSpec[];
  /** Tool choice, if any. */
  readonly toolChoice?: ToolChoice | undefined;
  /** Invocation state, shared by reference. */
  readonly invocationState: Record<string, unknown>;
  /** The agent view handlers may read, if any (frozen, shared). */
  readonly agent?: AgentView | undefined;
  /** The model state the call starts from, shown to handlers read-only, if any. */
  readonly modelState?: Readonly<Record<string, unknown>> | undefined;
  /** Who makes the call when it is not the agent itself (a middleware's name), if anyone. */
  readonly caller?: string | undefined;
  /** Makes model calls on the run's behalf from this call's handlers (MW-282), if the loop gives one. */
  readonly invokeModel?: MiddlewareModelCaller | undefined;
}

/**
 * Builds an InvokeModelStage context from the history. Its cost does not
 * depend on the history's length: the frozen message array is shared, not
 * copied, and only the small top-level object is new. `model` and
 * `invocationState` are shared by reference and never frozen.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `parts` is not an object
 *   or its `messages` or `toolSpecs` is not an array, or a part cannot be copied (see {@link frozenCopy}).
 * @example
 * ```ts
 * const context = createModelContext({ model, messages: [], systemPrompt, toolSpecs, invocationState: {} });
 * for await (const event of registry.invoke(InvokeModelStage, context, modelTerminal)) console.log(event.type);
 * ```
 */
export function createModelContext(parts: ModelContextParts): InvokeModelContext {
  if (!isObject(parts) || !Array.isArray(parts.messages) || !Array.isArray(parts.toolSpecs)) {
    throw invalidParts(
      'createModelContext(parts)',
      `parts must be { model, messages: Message[], systemPrompt, toolSpecs: ToolSpec[], invocationState }, got ${describeValue(parts)}`,
    );
  }
  const messages = frozenCopy(parts.messages, 'parts.messages');
  const systemPrompt = parts.systemPrompt === undefined ? NONE : frozenCopy(toSystemBlocks(parts.systemPrompt), 'parts.systemPrompt');
  const context: { -readonly [K in keyof InvokeModelContext]: InvokeModelContext[K] } = {
    model: parts.model,
    messages,
    systemPrompt,
    toolSpecs: frozenCopy(parts.toolSpecs, 'parts.toolSpecs'),
    invocationState: parts.invocationState,
  };
  if (parts.toolChoice !== undefined) context.toolChoice = frozenCopy(parts.toolChoice, 'parts.toolChoice');
  if (parts.agent !== undefined) context.agent = frozenCopy(parts.agent, 'parts.agent');
  if (parts.modelState !== undefined) context.modelState = frozenCopy(parts.modelState, 'parts.modelState');
  if (parts.caller !== undefined) context.caller = parts.caller;
  if (parts.invokeModel !== undefined) {
    if (typeof parts.invokeModel !== 'function')
      throw invalidParts(
        'createModelContext(parts)',
        `parts.invokeModel must be a function (call) => Promise<ModelResultEvent>, got ${describeValue(parts.invokeModel)}`,
      );
    context.invokeModel = parts.invokeModel;
  }
  return Object.freeze(context);
}
