/**
 * Stop conditions as TurnStage handlers (MW-292, MW-293): `stopWhen(condition)`,
 * and the two conditions users write most, `maxTurns(n)` and
 * `stopAfterTool(name)`. Each is a turn action (MW-127), so it composes with
 * every other decision: it stops only a run that would go on after the turn,
 * and a run that ends anyway keeps its own stop reason.
 */
import type { WrapHandler } from '../../core/index';
import { invalidOption } from '../../middleware/errors';
import { turnAction } from '../loop/turn-action';
import type { TurnAction, TurnContext, TurnEvent, TurnResultEvent } from '../types/stages';

/** Whether the run stops after the turn `context` describes. */
export type StopCondition = (context: TurnContext) => boolean | PromiseLike<boolean>;

/**
 * A TurnStage Wrap handler that stops the run after a turn when any of
 * `conditions` returns `true` (checked in order; the first to hold gives the
 * `stoppedBy` reason, its function's name), as the AI SDK's `stopWhen` does.
 * Conditions are checked only after a turn the run would go on from: when the
 * decision reached inside it is `'loopToModel'`, or `'natural'` after a turn
 * that ran tools. The run then ends with `stopReason: 'stopped'` and
 * `stoppedBy: { handler: <its registered name>, reason }`.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`phase: 'register'`, `handler: 'stopWhen'`) without conditions, or
 *   for one that is not a function. A condition that returns anything but `true` does not stop the run; an error
 *   it throws fails the TurnStage invoke unchanged.
 * @example
 * ```ts
 * registry.add(TurnStage.Wrap, stopWhen(function overBudget(context) { return context.usage.totalTokens > 50_000; }));
 * ```
 */
export function stopWhen(...conditions: readonly StopCondition[]): WrapHandler<TurnContext, TurnEvent> {
  if (conditions.length === 0) throw invalidOption('stopWhen', 'give at least one condition (context) => boolean', conditions);
  for (const condition of conditions)
    if (typeof condition !== 'function')
      throw invalidOption('stopWhen', 'every condition must be a function (context) => boolean', condition);
  const checked = Object.freeze([...conditions]);
  const decide = async (context: TurnContext, decided: TurnResultEvent): Promise<TurnAction | undefined> => {
    const goesOn = decided.decision === 'loopToModel' || (decided.decision === 'natural' && !context.ending);
    if (!goesOn) return undefined;
    for (const condition of checked) {
      const holds: unknown = await condition(context);
      if (holds === true) return condition.name.length > 0 ? { decision: 'stop', reason: condition.name } : { decision: 'stop' };
    }
    return undefined;
  };
  // Named explicitly: a bundler renames a function whose name the module's scope already takes.
  return named(turnAction(decide), 'stopWhen');
}

/**
 * A TurnStage Wrap handler named `maxTurns` that stops the run after turn `n`
 * (counted as `turn.index` counts, MW-125) when it would go on:
 * `stoppedBy: { handler: 'maxTurns', reason: 'reached <n> turns' }`. Unlike the
 * agent's `maxTurns` option (MW-143, stop reason `'maxTurns'`), it can be
 * registered on any registry, given to one run (`options.use`) and used by a loop of your own.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`phase: 'register'`, `handler: 'maxTurns'`) unless `n` is a positive integer.
 * @example
 * ```ts
 * registry.add(TurnStage.Wrap, maxTurns(5));
 * ```
 */
export function maxTurns(n: number): WrapHandler<TurnContext, TurnEvent> {
  if (!Number.isInteger(n) || n < 1) throw invalidOption('maxTurns', 'the limit must be a positive integer', n);
  const reached = { [`reached ${n} turns`]: (context: TurnContext): boolean => context.turn.index >= n }[
    `reached ${n} turns`
  ] as StopCondition;
  return named(stopWhen(reached), 'maxTurns');
}

/**
 * A TurnStage Wrap handler named `stopAfterTool` that stops the run after a
 * turn whose model called the tool `name` (the AI SDK's `hasToolCall`), once
 * the turn's tool calls ran: `stoppedBy: { handler: 'stopAfterTool', reason: 'called <name>' }`.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`phase: 'register'`, `handler: 'stopAfterTool'`) unless `name` is a non-empty string.
 * @example
 * ```ts
 * registry.add(TurnStage.Wrap, stopAfterTool('final_answer'));
 * ```
 */
export function stopAfterTool(name: string): WrapHandler<TurnContext, TurnEvent> {
  if (typeof name !== 'string' || name.length === 0) throw invalidOption('stopAfterTool', 'the tool name must be a non-empty string', name);
  const called = {
    [`called ${name}`]: (context: TurnContext): boolean =>
      context.turn.message.content.some((block) => block.type === 'toolUse' && block.name === name),
  }[`called ${name}`] as StopCondition;
  return named(stopWhen(called), 'stopAfterTool');
}

/** Gives `handler` the name messages, `explain()` and `stoppedBy` show. */
function named<T extends object>(handler: T, name: string): T {
  Object.defineProperty(handler, 'name', { value: name, configurable: true });
  return handler;
}
