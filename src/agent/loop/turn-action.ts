/**
 * TurnStage's terminal and the functions handlers decide with: a turn action
 * merges into the decision the layers inside reached, so several handlers
 * compose without one undoing another (MW-127).
 */
import type { HandlerCall, WrapHandler } from '../../core/index';
import type { TerminalCall } from '../../core/index';
import { describeValue } from '../../util/describe-value';
import { cannotCopy, invalidTurn, invalidTurnDecider } from '../errors';
import { frozenCopy, NONE } from '../values/freeze';
import { checkMessageShapes } from '../values/checked-messages';
import type { Message } from '../types/message';
import { isTurnResult } from '../stages';
import type { StoppedBy, TurnAction, TurnContext, TurnDecision, TurnEvent, TurnResultEvent } from '../types/stages';
import { isObject } from '../../util/is-object';

const DECISIONS: readonly TurnDecision[] = ['natural', 'loopToModel', 'stop'];
const RANK: Readonly<Record<TurnDecision, number>> = { natural: 0, loopToModel: 1, stop: 2 };

/**
 * The terminal of TurnStage: yields the natural decision (go on after tools,
 * end when the model ended its turn) and adds no messages; when a tool result
 * of the turn asked to end the run (`terminate`, MW-171), it decides `'stop'`
 * with `stoppedBy: { handler: 'terminate', reason: <the tool's name> }`.
 *
 * @example
 * ```ts
 * const decided = await registry.run(TurnStage, turnContext, turnTerminal);
 * ```
 */
export async function* turnTerminal(context: TurnContext, _run: TerminalCall<unknown>): AsyncGenerator<TurnResultEvent, void, undefined> {
  const terminate = (context.turn as TurnContext['turn'] | undefined)?.terminate;
  if (terminate !== undefined) {
    yield Object.freeze({
      type: 'turnResult',
      decision: 'stop',
      inject: NONE,
      onRunEnd: NONE,
      stoppedBy: Object.freeze({ handler: 'terminate', reason: terminate.tool }),
    });
    return;
  }
  // A new object per call: instrumentation that tells events apart by identity sees each decision.
  yield Object.freeze({ type: 'turnResult', decision: 'natural', inject: NONE, onRunEnd: NONE });
}

/**
 * Merges one handler's action into the decision reached so far: `'stop'`
 * wins over `'loopToModel'`, which wins over `'natural'`; message lists
 * concatenate, earlier first; `stoppedBy` names the first handler to stop;
 * `response` is the one `result` carries, else the action's (so, in list
 * order, the handler registered last wins, MW-340).
 * An undefined action returns `result` itself.
 *
 * @param handler - The name `stoppedBy` gives when this action stops the run.
 * A key that is undefined takes its default (`'natural'`, no messages); any other value is checked, `null` included.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `turn`) for a decision other than the three, message lists
 *   that are not arrays of messages, or a reason that is not a string.
 * @example
 * ```ts
 * registry.add(TurnStage.Output, (result) => result.replace(mergeTurnAction(result.value, { decision: 'stop' }, 'budget')));
 * ```
 */
export function mergeTurnAction(result: TurnResultEvent, action: TurnAction | undefined, handler: string): TurnResultEvent {
  if (action === undefined) return result;
  const decided = readTurnResult(result);
  if (!isObject(action))
    throw invalidTurn(
      `a turn action must be { decision?, inject?, onRunEnd?, reason?, response? } or undefined, got ${describeValue(action)}`,
    );
  // Defaults apply to undefined keys only: null is a value like any other, and is checked.
  const { decision = 'natural', inject: injected = NONE, onRunEnd: ending = NONE } = action;
  if (!DECISIONS.includes(decision))
    throw invalidTurn(`decision must be 'natural', 'loopToModel' or 'stop', got ${describeValue(decision)}`);
  if (action.reason !== undefined && typeof action.reason !== 'string')
    throw invalidTurn(`reason must be a string, got ${describeValue(action.reason)}`);
  const inject = turnMessages(injected, 'inject');
  const onRunEnd = turnMessages(ending, 'onRunEnd');
  const response = decided.response ?? (action.response === undefined ? undefined : turnResponse(action.response));
  const merged: TurnDecision = RANK[decision] > RANK[decided.decision] ? decision : decided.decision;
  let stoppedBy = decided.stoppedBy;
  if (stoppedBy === undefined && decision === 'stop')
    stoppedBy = Object.freeze(action.reason === undefined ? { handler } : { handler, reason: action.reason });
  return Object.freeze({
    type: 'turnResult',
    decision: merged,
    inject: concat(decided.inject, inject),
    onRunEnd: concat(decided.onRunEnd, onRunEnd),
    ...(stoppedBy === undefined ? {} : { stoppedBy }),
    ...(response === undefined ? {} : { response }),
  });
}

/**
 * How a handler decides with {@link turnAction}: from the turn, the decision the layers inside it reached (with the
 * `response` one of them put in the turn's place, if any), and its call, whose `signal` aborts when the run is
 * cancelled, so a decider that waits on I/O can stop.
 */
export type TurnDecider = (
  context: TurnContext,
  decided: TurnResultEvent,
  call: HandlerCall,
) => TurnAction | undefined | PromiseLike<TurnAction | undefined>;

/**
 * A TurnStage Wrap handler, named after `decide`, that merges what `decide`
 * returns into the decision of the layers inside it (see {@link mergeTurnAction}).
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `decide` is not a function.
 * @example
 * ```ts
 * registry.add(TurnStage.Wrap, turnAction(function verifier(context) {
 *   if (!context.ending || calledVerifier(context.messages)) return undefined;
 *   return { decision: 'loopToModel', inject: [{ role: 'user', content: [{ type: 'text', text: 'Call the verifier first.' }] }] };
 * }));
 * ```
 */
export function turnAction(decide: TurnDecider): WrapHandler<TurnContext, TurnEvent> {
  if (typeof decide !== 'function') throw invalidTurnDecider(decide);
  const handler = async function* (
    context: TurnContext,
    next: () => AsyncGenerator<TurnEvent, void, undefined>,
    run: HandlerCall,
  ): AsyncGenerator<TurnEvent, void, undefined> {
    let last: TurnEvent | undefined;
    let pulled = false;
    for await (const event of next()) {
      if (pulled) yield last as TurnEvent;
      last = event;
      pulled = true;
    }
    if (!pulled) return;
    if (!isTurnResult(last)) {
      // Not a decision: passed on as it is, for the core to judge (MW-006).
      yield last as TurnEvent;
      return;
    }
    yield mergeTurnAction(last, await decide(context, last, run), run.handler);
  };
  Object.defineProperty(handler, 'name', { value: decide.name.length > 0 ? decide.name : 'turnAction' });
  return handler;
}

/**
 * Checks what a TurnStage invoke delivered, as a loop must before it acts on
 * it (MW-126), and returns it as a frozen copy to act on: a `turnResult`
 * whose `decision` is one of the three, whose `inject` and `onRunEnd` are
 * arrays of well-formed messages (copied and frozen), and whose `stoppedBy`
 * is present exactly on a `'stop'`. A loop of your own calls it on the last
 * event of each TurnStage invoke and lets the error end the run: a handler's
 * malformed result then fails the run as it fails the reference `Agent`'s.
 *
 * @param result - The last event of the TurnStage invoke (undefined when it delivered none).
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `turn`) naming the field that does not fit MW-125.
 * @example
 * ```ts
 * let last: unknown;
 * for await (const event of registry.invoke(TurnStage, turnContext, turnTerminal, { signal })) last = event;
 * const decided = readTurnResult(last); // throws for a result no loop may act on
 * if (decided.decision === 'stop') console.log(decided.stoppedBy?.handler);
 * ```
 */
export function readTurnResult(result: unknown): TurnResultEvent {
  if (!isTurnResult(result)) throw invalidTurn(`the result must be a turnResult event, got ${describeValue(result)}`);
  const event = result;
  if (!DECISIONS.includes(event.decision))
    throw invalidTurn(`decision must be 'natural', 'loopToModel' or 'stop', got ${describeValue(event.decision)}`);
  const inject = turnMessages(event.inject, 'inject');
  const onRunEnd = turnMessages(event.onRunEnd, 'onRunEnd');
  const stoppedBy = readStoppedBy(event);
  const response = event.response === undefined ? undefined : turnResponse(event.response);
  return Object.freeze({
    type: 'turnResult',
    decision: event.decision,
    inject,
    onRunEnd,
    ...(stoppedBy === undefined ? {} : { stoppedBy }),
    ...(response === undefined ? {} : { response }),
  });
}

/** A replacement of the turn's assistant message, copied and frozen; the copy is what is checked. */
function turnResponse(value: unknown): Message {
  const message = copiedMessages([value], 'response')[0] as Partial<Message> | null;
  if (!isObject(message) || message.role !== 'assistant' || !Array.isArray(message.content))
    throw invalidTurn(`response must be an assistant message { role: 'assistant', content: ContentBlock[] }, got ${describeValue(value)}`);
  return message as Message;
}

/** The `stoppedBy` of a result: required on a stop, absent otherwise. */
function readStoppedBy(result: TurnResultEvent): StoppedBy | undefined {
  const { stoppedBy } = result;
  if (result.decision !== 'stop') {
    if (stoppedBy !== undefined) throw invalidTurn(`stoppedBy belongs to a 'stop' decision only; this one is '${result.decision}'`);
    return undefined;
  }
  const valid =
    isObject(stoppedBy) &&
    typeof stoppedBy.handler === 'string' &&
    (stoppedBy.reason === undefined || typeof stoppedBy.reason === 'string');
  if (!valid)
    throw invalidTurn(
      `a 'stop' decision needs stoppedBy: { handler: string, reason?: string } (mergeTurnAction() sets it), got ${describeValue(stoppedBy)}`,
    );
  return frozenCopy(stoppedBy, 'stoppedBy');
}

/** A list of messages from a turn result or action, copied and frozen. */
function turnMessages(value: unknown, field: string): readonly Message[] {
  if (!Array.isArray(value)) throw invalidTurn(`${field} must be an array of messages, got ${describeValue(value)}`);
  const copy = copiedMessages(value, field);
  checkMessageShapes(copy, field, invalidTurn);
  return copy;
}

/** A frozen copy of `value`, a copy that fails reported on the turn stage; its items are not checked yet. */
function copiedMessages(value: readonly unknown[], field: string): readonly Message[] {
  return frozenCopy(value as readonly Message[], field, (problem, cause) => cannotCopy(problem, cause, invalidTurn));
}

function concat(first: readonly Message[], second: readonly Message[]): readonly Message[] {
  if (second.length === 0) return first;
  if (first.length === 0) return second;
  return Object.freeze([...first, ...second]);
}
