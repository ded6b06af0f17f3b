/**
 * The tool calls of one turn of the reference agent's loop: an
 * ExecuteToolStage invoke per tool use, one after another, in message order.
 * An interrupt does not stop the others: it is yielded at once and the turn
 * halts when every call has run (MW-113, MW-132).
 */

import type { PendingTurn } from '../session/suspended-run';
import { interruptFor, InterruptSignal, type ResponseStore } from '../session/interrupts';
import { freezeResultEvent } from '../values/freeze';
import type { ToolResultBlock } from '../types/message';
import type { Usage } from '../types/model';
import type { RunScope } from '../setup/run-scope';
import type { AgentEvent, ExecuteToolContext, InterruptEvent, MiddlewareModelCaller, ToolResultEvent } from '../types/stages';
import { ExecuteToolStage } from '../stages';
import type { Interrupt } from '../types/tool';
import { toolTerminal } from '../tools/tool-terminal';
import { invalidToolUsage } from '../tools/call-errors';
import { namedToolResult } from '../tools/named-tool-result';

/** A turn being worked on: its pending part, with the results this terminal call found so far. */
export interface WorkingTurn extends PendingTurn {
  /** The results known, by tool-use id. */
  readonly results: Map<string, ToolResultBlock>;
  /** The tool uses whose result asked to end the run. */
  readonly terminating: Set<string>;
}

/**
 * ExecuteToolStage for each tool use of the turn that has no result yet,
 * yielding an interrupt event for each interrupt as it is raised (and adding it to `shown`); returns the interrupts raised.
 */
export async function* callTools(
  scope: RunScope,
  turn: WorkingTurn,
  store: ResponseStore,
  invocationState: Record<string, unknown>,
  signal: AbortSignal,
  report: (who: string, usage: Usage) => void,
  shown: Interrupt[],
  invokeModel: MiddlewareModelCaller,
): AsyncGenerator<AgentEvent, readonly Interrupt[], undefined> {
  const interrupts: Interrupt[] = [];
  const childRegistry = () => scope.registry.child();
  for (const toolUse of turn.toolUses) {
    if (turn.results.has(toolUse.toolUseId)) continue;
    const context: ExecuteToolContext = Object.freeze({
      tool: scope.tools.get(toolUse.name),
      toolUse: Object.freeze({ name: toolUse.name, toolUseId: toolUse.toolUseId, input: toolUse.input }),
      invocationState,
      signal,
      interrupt: interruptFor(ExecuteToolStage.name, toolUse.toolUseId, store),
      agent: scope.view,
      childRegistry,
      invokeModel,
    });
    let raised: readonly Interrupt[];
    try {
      let last: AgentEvent | undefined;
      for await (const event of scope.registry.invoke(ExecuteToolStage, context, toolTerminal, { signal })) {
        last = freezeResultEvent(event);
        yield event;
      }
      const result = last as ToolResultEvent;
      turn.results.set(toolUse.toolUseId, namedToolResult(result.toolResult, toolUse));
      if (result.usage !== undefined) report(toolUse.name, readUsage(result.usage, toolUse.name));
      if (result.terminate === true) turn.terminating.add(toolUse.toolUseId);
      continue;
    } catch (error) {
      if (!InterruptSignal.isInstance(error)) throw error;
      // A signal of an older copy of the package carries one interrupt only.
      const interrupts: readonly Interrupt[] | undefined = error.interrupts;
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal of an older copy has no interrupts
      raised = interrupts ?? [error.interrupt];
    }
    for (const interrupt of raised) {
      interrupts.push(interrupt);
      shown.push(interrupt);
      yield interruptEvent(interrupt);
    }
  }
  return Object.freeze(interrupts);
}

/**
 * The `usage` a tool result reports, checked.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `executeTool`) unless it is three finite numbers.
 */
function readUsage(usage: unknown, tool: string): Usage {
  const value = usage as Partial<Usage> | null;
  const counts = typeof value === 'object' && value !== null ? [value.inputTokens, value.outputTokens, value.totalTokens] : [];
  if (counts.length === 3 && counts.every((count) => typeof count === 'number' && Number.isFinite(count))) return usage as Usage;
  throw invalidToolUsage(tool, usage);
}

/** The event that announces an interrupt (frozen; the interrupt is the one the agent result lists). */
export function interruptEvent(interrupt: Interrupt): InterruptEvent {
  return Object.freeze({ type: 'interrupt', interrupt });
}
