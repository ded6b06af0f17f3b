/**
 * Model calls middleware makes on a run's behalf (a summary, say): through
 * InvokeModelStage like the agent's own, so retry, caching and tracing apply,
 * but marked with their `caller`, kept out of the run's stream and its model
 * state, and counted apart in `middlewareUsage` (MW-166).
 */

import type { MiddlewareModelCall, MiddlewareModelCaller, MiddlewareUsage, ModelResultEvent } from '../types/stages';
import { createModelContext } from '../session/history';
import { freezeResultEvent } from '../values/freeze';
import { modelTerminal } from './model-terminal';
import type { Model, Usage } from '../types/model';
import type { RunScope } from '../setup/run-scope';
import { InvokeModelStage } from '../stages';
import { addUsage, ZERO_USAGE } from '../setup/usage';
import { invalidMiddlewareCall } from '../errors';
import { isObject } from '../../util/is-object';
import { isNonEmptyString } from '../values/value-shapes';

/** What a middleware call runs with. */
export interface MiddlewareCallRun {
  /** The run's scope. */
  readonly scope: RunScope;
  /** The agent's model, the default of a call. */
  readonly model: Model;
  /** The run's invocation state. */
  readonly invocationState: Record<string, unknown>;
  /** The run signal. */
  readonly signal: AbortSignal;
  /** Receives the usage of each call that completed, under its caller. */
  readonly report: (caller: string, usage: Usage) => void;
}

/** The model state of a middleware call: a draft of its own, dropped afterwards. */
const THROWAWAY_STATE = { get: (): Record<string, unknown> => ({}), set: (): void => undefined };

/**
 * A function making middleware-owned model calls for one terminal call of a run.
 *
 * @throws MiddlewareError (from the function it returns) `ERR_INVALID_OPTIONS` (stage `invokeModel`) for a call
 *   without a non-empty `caller` or a `messages` array; the errors of the InvokeModelStage invoke, unchanged.
 */
export function middlewareCaller(run: MiddlewareCallRun): MiddlewareModelCaller {
  return async function invokeModel(call: MiddlewareModelCall): Promise<ModelResultEvent> {
    const valid = isObject(call) && isNonEmptyString(call.caller) && Array.isArray(call.messages);
    if (!valid) {
      throw invalidMiddlewareCall(call);
    }
    const context = createModelContext({
      model: call.model ?? run.model,
      messages: call.messages,
      systemPrompt: call.systemPrompt,
      toolSpecs: call.toolSpecs ?? [],
      invocationState: run.invocationState,
      agent: run.scope.view,
      caller: call.caller,
    });
    let last: unknown;
    for await (const event of run.scope.registry.invoke(InvokeModelStage, context, modelTerminal, {
      signal: run.signal,
      state: THROWAWAY_STATE,
    }))
      last = event;
    const result = freezeResultEvent(last as ModelResultEvent) as ModelResultEvent;
    run.report(call.caller, result.usage);
    return result;
  };
}

/** `usage` added to the counts of `who` (frozen). */
export function addMiddlewareUsage(counts: MiddlewareUsage, who: string, usage: Usage): MiddlewareUsage {
  return Object.freeze({ ...counts, [who]: addUsage(counts[who] ?? ZERO_USAGE, usage) });
}

/** No middleware usage (frozen, shared). */
export const NO_MIDDLEWARE_USAGE: MiddlewareUsage = /*#__PURE__*/ Object.freeze({});
