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

/** The run an AgentStreamStage terminal entry opens: its invocation state; undefined for any other layer entry. */
export function opensAgentRun(layer: LayerInfo): object | undefined {
  return layer.stage === AgentStreamStage && layer.kind === 'terminal' ? invocationState(layer.context) : undefined;
}

/** The run a model, tool or turn invoke joins: its invocation state; undefined for an invoke of any other stage. */
export function joinsAgentRun(info: InvokeInfo): object | undefined {
  return NESTED.has(info.stage) ? invocationState(info.context) : undefined;
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
