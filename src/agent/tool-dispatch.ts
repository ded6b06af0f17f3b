/**
 * The tool calls of one turn of the reference agent's loop: an
 * ExecuteToolStage invoke per tool use, one after another, in message order.
 */
import type { AgentCore } from './agent-core';
import { createInterrupt, InterruptSignal } from './interrupts';
import { kept } from './kept';
import type { ToolResultBlock } from './message-types';
import type { PendingTurn } from './pending-turn';
import type { AgentEvent, ExecuteToolContext } from './stage-types';
import { ExecuteToolStage } from './stages';
import type { Interrupt } from './tool-types';
import { toolTerminal } from './tool-terminal';

/** ExecuteToolStage for each tool use of the turn that has no result yet; returns the interrupts raised. */
export async function* callTools(core: AgentCore, turn: PendingTurn, invocationState: Record<string, unknown>, signal: AbortSignal): AsyncGenerator<AgentEvent, readonly Interrupt[], undefined> {
  const interrupts: Interrupt[] = [];
  for (const toolUse of turn.toolUses) {
    if (turn.results.has(toolUse.toolUseId)) continue;
    const context: ExecuteToolContext = Object.freeze({
      tool: core.tools.get(toolUse.name),
      toolUse: Object.freeze({ name: toolUse.name, toolUseId: toolUse.toolUseId, input: toolUse.input }),
      invocationState,
      signal,
      interrupt: createInterrupt(ExecuteToolStage.name, toolUse.toolUseId, turn.stored),
      agent: core.view,
    });
    try {
      let last: AgentEvent | undefined;
      for await (const event of core.registry.invoke(ExecuteToolStage, context, toolTerminal, { signal })) {
        last = kept(event);
        yield event;
      }
      turn.results.set(toolUse.toolUseId, (last as { toolResult: ToolResultBlock }).toolResult);
    } catch (error) {
      if (!InterruptSignal.isInstance(error)) throw error;
      interrupts.push(error.interrupt);
    }
  }
  return Object.freeze(interrupts);
}
