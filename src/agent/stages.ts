import { createStage } from '../stage';
import type {
  AgentEvent,
  AgentResultEvent,
  AgentStreamContext,
  ExecuteToolContext,
  InvokeModelContext,
  InvokeModelEvent,
  ModelResultEvent,
  ToolResultEvent,
} from './stage-types';

/** Marks an event object of the given kind; every guard below is built from it. */
function hasType(event: unknown, type: string): boolean {
  return typeof event === 'object' && event !== null && (event as { type?: unknown }).type === type;
}

/** Result guard of {@link InvokeModelStage}. */
export function isModelResult(event: unknown): event is ModelResultEvent {
  return hasType(event, 'modelResult');
}

/** Result guard of {@link ExecuteToolStage}. */
export function isToolResult(event: unknown): event is ToolResultEvent {
  return hasType(event, 'toolResult');
}

/** Result guard of {@link AgentStreamStage}. */
export function isAgentResult(event: unknown): event is AgentResultEvent {
  return hasType(event, 'agentResult');
}

/**
 * One model call: the context is what the model will see, the events are the
 * model's stream, the result is the assembled message with its stop reason.
 *
 * @example
 * ```ts
 * registry.add(InvokeModelStage.Input, (context) => ({
 *   ...context,
 *   systemPrompt: [...context.systemPrompt, { text: 'Answer in French.' }],
 * }));
 * ```
 */
export const InvokeModelStage = createStage<InvokeModelContext, ModelResultEvent, InvokeModelEvent>('invokeModel', {
  isResult: isModelResult,
});

/**
 * One tool call: the context names the tool (undefined for an unknown one)
 * and the call; the result is the tool result sent back to the model.
 *
 * @example
 * ```ts
 * registry.add(ExecuteToolStage.Wrap, async function* guard(context, next) {
 *   if (context.toolUse.name === 'deleteFiles') {
 *     yield { type: 'toolResult', toolResult: { type: 'toolResult', toolUseId: context.toolUse.toolUseId, status: 'error', content: [{ type: 'text', text: 'Blocked.' }] } };
 *     return;
 *   }
 *   yield* next();
 * });
 * ```
 */
export const ExecuteToolStage = createStage<ExecuteToolContext, ToolResultEvent, ToolResultEvent>('executeTool', {
  isResult: isToolResult,
});

/**
 * One whole agent run (every model call and tool call of it): the context is
 * the run's input, the events are everything the run yields, the result says how it ended.
 */
export const AgentStreamStage = createStage<AgentStreamContext, AgentResultEvent, AgentEvent>('agentStream', {
  isResult: isAgentResult,
});
