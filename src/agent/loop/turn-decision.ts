/**
 * The decision after a turn (MW-126, MW-311): the TurnStage context of a
 * completed turn, the TurnStage invoke whose delivered result says whether
 * the loop goes on and which messages it adds, and whether that result ends
 * the run, and the history acted on accordingly (MW-328). The reference agent
 * and a framework's own loop use the same pieces.
 */
import type { MiddlewareRegistry } from '../../core/index';
import { describeValue } from '../../util/describe-value';
import { isObject } from '../../util/is-object';
import { invalidTurn } from '../errors';
import { TurnStage } from '../stages';
import { addUsage, isUsage, USAGE_EXPECTED, ZERO_USAGE } from '../setup/usage';
import { frozenCopy } from '../values/freeze';
import type { Message } from '../types/message';
import type { Usage } from '../types/model';
import type { MiddlewareModelCaller, TurnContext, TurnEvent, TurnInfo, TurnResultEvent } from '../types/stages';
import type { AgentView } from '../types/view';
import type { History } from '../session/history';
import { readTurnResult, turnTerminal } from './turn-action';

/** What {@link createTurnContext} builds a TurnStage context from. */
export interface TurnContextParts {
  /** The history after the turn: its assistant message and tool results appended (a frozen array, as `History.messages` returns). */
  readonly messages: readonly Message[];
  /** The turn just completed. */
  readonly turn: TurnInfo;
  /** Token counts of the loop's model calls so far (see `addUsage`). */
  readonly usage: Usage;
  /** The run's invocation state, shared by reference. */
  readonly invocationState: Record<string, unknown>;
  /** The agent view handlers may read, if any. */
  readonly agent?: AgentView | undefined;
  /** Makes model calls on the run's behalf (MW-342), if the loop gives handlers one. */
  readonly invokeModel?: MiddlewareModelCaller | undefined;
}

/**
 * Builds the TurnStage context of a completed turn (frozen): `messages`,
 * `turn` and `agent` copied and frozen (a frozen value taken as it is),
 * `usage` a frozen copy, `invocationState` shared by reference, and `ending`
 * true exactly when the turn ran no tools.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `turn`) when `parts` is not an object, `messages` or
 *   `turn.toolResults` is not an array, `turn.index` is not a positive integer, `turn.message` is not an object,
 *   `invocationState` is not an object, `usage` is not three finite numbers, or `invokeModel` is given and is not a
 *   function.
 * @example
 * ```ts
 * const history = new History([result.message]);
 * const turnContext = createTurnContext({
 *   messages: history.messages,
 *   turn: { index: 1, message: result.message, toolResults: [], stopReason: result.stopReason },
 *   usage,
 *   invocationState,
 * });
 * ```
 */
export function createTurnContext(parts: TurnContextParts): TurnContext {
  if (!isObject(parts))
    throw invalidTurn(`createTurnContext(parts): parts must be { messages, turn, usage, invocationState }, got ${describeValue(parts)}`);
  const { messages, turn, invocationState, agent } = parts;
  if (!Array.isArray(messages))
    throw invalidTurn(`createTurnContext(parts): messages must be an array of messages, got ${describeValue(messages)}`);
  const info = turn as Partial<TurnInfo> | null;
  if (
    !isObject(info) ||
    !Number.isInteger(info.index) ||
    (info.index as number) < 1 ||
    !isObject(info.message) ||
    !Array.isArray(info.toolResults)
  )
    throw invalidTurn(
      `createTurnContext(parts): turn must be { index: 1, 2, ..., message, toolResults: ToolResultBlock[], stopReason }, got ${describeValue(turn)}`,
    );
  if (!isObject(invocationState))
    throw invalidTurn(`createTurnContext(parts): invocationState must be an object, got ${describeValue(invocationState)}`);
  if (!isUsage(parts.usage)) throw invalidTurn(`createTurnContext(parts): usage ${USAGE_EXPECTED}, got ${describeValue(parts.usage)}`);
  const context: { -readonly [K in keyof TurnContext]: TurnContext[K] } = {
    messages: frozenCopy(messages, 'parts.messages'),
    turn: frozenCopy(turn, 'parts.turn'),
    ending: turn.toolResults.length === 0,
    usage: addUsage(ZERO_USAGE, parts.usage),
    invocationState,
  };
  if (agent !== undefined) context.agent = frozenCopy(agent, 'parts.agent');
  if (parts.invokeModel !== undefined) {
    if (typeof parts.invokeModel !== 'function')
      throw invalidTurn(
        `createTurnContext(parts): invokeModel must be a function (call) => Promise<ModelResultEvent>, got ${describeValue(parts.invokeModel)}`,
      );
    context.invokeModel = parts.invokeModel;
  }
  return Object.freeze(context);
}

/**
 * The TurnStage context {@link createTurnContext} builds, from parts a loop of the kit made itself: `messages` a
 * history's frozen array, `turn` a fresh object of frozen parts that nobody else holds (frozen here in place),
 * `usage` a frozen sum, `agent` the run's frozen view. Nothing is checked or copied: each part already is what
 * the public builder would make of it.
 */
export function ownTurnContext(parts: TurnContextParts): TurnContext {
  const { turn, agent, invokeModel } = parts;
  const context: { -readonly [K in keyof TurnContext]: TurnContext[K] } = {
    messages: parts.messages,
    turn: Object.freeze(turn),
    ending: turn.toolResults.length === 0,
    usage: parts.usage,
    invocationState: parts.invocationState,
  };
  if (agent !== undefined) context.agent = agent;
  if (invokeModel !== undefined) context.invokeModel = invokeModel;
  return Object.freeze(context);
}

/**
 * Invokes TurnStage for a completed turn with {@link turnTerminal} and
 * returns what it delivered, checked by {@link readTurnResult} (a frozen
 * copy). Its events are the loop's own business: a loop does not yield them.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `turn`) for a result no loop may act on; what a handler
 *   throws, as it was thrown.
 * @example
 * ```ts
 * const decided = await decideTurn(registry, turnContext, { signal });
 * const history = new History(turnContext.messages);
 * history.append(...decided.inject);
 * if (endsRun(decided, turnContext)) history.append(...decided.onRunEnd);
 * ```
 */
export async function decideTurn(
  registry: MiddlewareRegistry,
  context: TurnContext,
  options: { readonly signal?: AbortSignal | undefined } = {},
): Promise<TurnResultEvent> {
  const { signal } = options;
  let last: TurnEvent | undefined;
  for await (const event of registry.invoke(TurnStage, context, turnTerminal, signal === undefined ? {} : { signal })) last = event;
  const decided = readTurnResult(last);
  if (decided.response !== undefined) {
    // The turn's tool results answer its tool uses: a replacement that drops or adds one would leave them unanswered.
    const asked = toolUseIds(context.turn.message);
    const kept = toolUseIds(decided.response);
    if (asked.length !== kept.length || asked.some((id, index) => id !== kept[index]))
      throw invalidTurn(
        `response must keep the turn's tool uses, in order (${asked.join(', ') || 'none'}), got ${kept.join(', ') || 'none'}; change the other blocks only`,
      );
  }
  return decided;
}

/**
 * The history after a turn whose decision replaced its assistant message
 * (`decided.response`, MW-340): `messages` with that message in the place of
 * the turn's, which is the last message, or the one before the tool results
 * when the turn ran tools. Without a replacement, `messages` itself.
 *
 * @example
 * ```ts
 * const decided = await decideTurn(registry, turnContext);
 * const messages = withResponse(turnContext.messages, turnContext, decided); // then append decided.inject
 * ```
 */
export function withResponse(messages: readonly Message[], context: TurnContext, decided: TurnResultEvent): readonly Message[] {
  if (decided.response === undefined) return messages;
  const at = messages.length - (context.ending ? 1 : 2);
  return Object.freeze([...messages.slice(0, at), decided.response, ...messages.slice(at + 1)]);
}

/** The ids of a message's tool uses, in order. */
function toolUseIds(message: Message): readonly string[] {
  const content = (message as { readonly content?: unknown }).content;
  if (!Array.isArray(content)) return [];
  return content.flatMap((block: unknown) =>
    isObject(block) && (block as { readonly type?: unknown }).type === 'toolUse'
      ? [String((block as { readonly toolUseId?: unknown }).toolUseId)]
      : [],
  );
}

/**
 * Whether the run ends after the turn `decided` is about: on `'stop'`, and on
 * `'natural'` when the turn ran no tools (`context.ending`); never on
 * `'loopToModel'`. A run that ends appends `decided.onRunEnd` to its history.
 *
 * @example
 * ```ts
 * const decided = await decideTurn(registry, turnContext);
 * const ends = endsRun(decided, turnContext); // then append decided.onRunEnd and end the run
 * ```
 */
export function endsRun(decided: TurnResultEvent, context: TurnContext): boolean {
  return decided.decision === 'stop' || (decided.decision === 'natural' && context.ending);
}

/** A turn's decision as {@link settleTurn} acted on it: the delivered TurnStage result and whether the run ends. */
export interface SettledTurn extends TurnResultEvent {
  /** {@link endsRun} of the result: the run ends after this turn (appending `onRunEnd` is the loop's). */
  readonly ends: boolean;
}

/**
 * Decides after a completed turn and acts on the decision in `history`
 * (MW-328): {@link decideTurn}, then a handler's replacement response in
 * the turn's place ({@link withResponse}) and the `inject` messages
 * appended. Returns the result with `ends` ({@link endsRun}), frozen. A run
 * that ends appends `onRunEnd` itself, so a loop that ends for a reason of
 * its own (a turn limit) does so the same way.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `turn`), before any invoke, when `history` is not a `History` (an object
 *   with an array `messages` and functions `append` and `replace`); what {@link decideTurn} throws, the history
 *   untouched.
 * @example
 * ```ts
 * const history = new History([result.message]);
 * const turn = { index: 1, message: result.message, toolResults: [], stopReason: result.stopReason };
 * const turnContext = createTurnContext({ messages: history.messages, turn, usage, invocationState });
 * const settled = await settleTurn(registry, history, turnContext, { signal });
 * if (settled.ends) history.append(...settled.onRunEnd); // and the run ends
 * ```
 */
export async function settleTurn(
  registry: MiddlewareRegistry,
  history: History,
  context: TurnContext,
  options: { readonly signal?: AbortSignal | undefined } = {},
): Promise<SettledTurn> {
  const given = history as Partial<History> | null;
  if (!isObject(given) || !Array.isArray(given.messages) || typeof given.append !== 'function' || typeof given.replace !== 'function')
    throw invalidTurn(`settleTurn(registry, history, context): history must be a History, got ${describeValue(history)}`);
  const decided = await decideTurn(registry, context, options);
  if (decided.response !== undefined) history.replace(withResponse(history.messages, context, decided));
  history.append(...decided.inject);
  return Object.freeze({ ...decided, ends: endsRun(decided, context) });
}
