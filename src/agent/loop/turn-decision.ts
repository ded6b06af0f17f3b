/**
 * The decision after a turn (MW-126): a TurnStage invoke whose delivered
 * result says whether the loop goes on, and which messages it adds.
 */
import type { Attempt } from '../setup/run-state';
import type { RunScope } from '../setup/run-scope';
import { TurnStage } from '../stages';
import { readTurnResult, turnTerminal } from './turn-action';
import type { TurnContext, TurnEvent, TurnInfo, TurnResultEvent } from '../types/stages';

/**
 * Invokes TurnStage for a completed turn and returns its result, checked and
 * frozen. Its events are the loop's own business: none reaches the run's stream.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `turn`) for a result the loop cannot act on.
 */
export async function decideTurn(
  scope: RunScope,
  attempt: Attempt,
  turn: TurnInfo,
  invocationState: Record<string, unknown>,
  signal: AbortSignal,
): Promise<TurnResultEvent> {
  const context: TurnContext = Object.freeze({
    messages: attempt.history.messages,
    turn: Object.freeze(turn),
    ending: turn.toolResults.length === 0,
    usage: attempt.usage,
    invocationState,
    agent: scope.view,
  });
  let last: TurnEvent | undefined;
  for await (const event of scope.registry.invoke(TurnStage, context, turnTerminal, { signal })) last = event;
  return readTurnResult(last);
}
