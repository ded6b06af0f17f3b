/**
 * What an agent run is to `tracing()` (MW-192): the AgentStreamStage terminal
 * entry opens it, and the model, tool and turn invokes the reference loop (or
 * a framework's own loop) makes inside that terminal join it, so they nest
 * under the terminal entry's span.
 *
 * The run is recognised by its invocation state: every standard context of one
 * run shares that one object by reference (MW-103), and it is the only value
 * they are required to share. Neither the core nor the loop is asked for
 * anything, and an invoke outside an agent run joins none.
 *
 * @packageDocumentation
 */
import type { AnyStage, InvokeInfo, LayerInfo } from '../../core/index';
import { AgentStreamStage, ExecuteToolStage, InvokeModelStage, TurnStage } from '../stages';
import { isObject } from '../../util/is-object';

/** The stages whose invokes happen inside an agent run's terminal. */
const NESTED: ReadonlySet<AnyStage> = new Set<AnyStage>([InvokeModelStage, ExecuteToolStage, TurnStage]);

/** The tool calls sub-agent runs work for: a child run's invocation state, and the `toolUse` of the parent's call (MW-338). */
const toolCallOf = new WeakMap<object, object>();

/**
 * Makes the run whose invocation state is `childState` a child of the tool
 * call whose context holds `toolUse`: its AgentStreamStage invoke joins the
 * run that call's ExecuteToolStage terminal entry opens, so the sub-agent's
 * spans nest under the parent's tool call without a context manager.
 */
export function nestUnderToolCall(childState: object, toolUse: object): void {
  toolCallOf.set(childState, toolUse);
}

/**
 * The run a layer entry opens: an AgentStreamStage terminal entry, its
 * invocation state; an ExecuteToolStage terminal entry, its context's
 * `toolUse` (the sub-agents the call runs join it); undefined for any other.
 */
export function opensAgentRun(layer: LayerInfo): object | undefined {
  if (layer.kind !== 'terminal') return undefined;
  if (layer.stage === AgentStreamStage) return invocationState(layer.context);
  return layer.stage === ExecuteToolStage ? toolUseOf(layer.context) : undefined;
}

/**
 * The run an invoke joins: for a model, tool or turn invoke its invocation
 * state; for the AgentStreamStage invoke of a sub-agent's run, the tool
 * call it works for; undefined for any other.
 */
export function joinsAgentRun(info: InvokeInfo): object | undefined {
  if (NESTED.has(info.stage)) return invocationState(info.context);
  if (info.stage !== AgentStreamStage) return undefined;
  const state = invocationState(info.context);
  return state === undefined ? undefined : toolCallOf.get(state);
}

/** The context's `toolUse` when it is an object; a getter that throws counts as none. */
function toolUseOf(context: unknown): object | undefined {
  if (!isObject(context)) return undefined;
  try {
    const toolUse = (context as { readonly toolUse?: unknown }).toolUse;
    return isObject(toolUse) ? toolUse : undefined;
  } catch {
    return undefined;
  }
}

/** The context's invocation state when it is an object; a getter that throws counts as none. */
function invocationState(context: unknown): object | undefined {
  if (!isObject(context)) return undefined;
  try {
    const state = (context as { readonly invocationState?: unknown }).invocationState;
    return isObject(state) ? state : undefined;
  } catch {
    return undefined;
  }
}
