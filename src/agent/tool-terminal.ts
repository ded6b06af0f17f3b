import type { TerminalRun } from '../types';
import { InterruptSignal } from './interrupts';
import type { JsonBlock, TextBlock } from './message-types';
import type { ExecuteToolContext, ToolResultEvent } from './stage-types';

/**
 * A tool result event with status `'error'` and one text block.
 *
 * @example
 * ```ts
 * registry.add(ExecuteToolStage.Wrap, async function* blockDeletes(context, next) {
 *   if (context.toolUse.name === 'delete') yield errorResult(context.toolUse.toolUseId, 'Deleting is not allowed.');
 *   else yield* next();
 * });
 * ```
 */
export function errorResult(toolUseId: string, text: string, error?: unknown): ToolResultEvent {
  const event: ToolResultEvent = {
    type: 'toolResult',
    toolResult: { type: 'toolResult', toolUseId, status: 'error', content: [{ type: 'text', text }] },
  };
  return error === undefined ? event : { ...event, error };
}

/**
 * How a tool's return value is sent back: a string as text, anything else as JSON.
 *
 * @example
 * ```ts
 * toResultContent({ celsius: 21 }); // [{ type: 'json', json: { celsius: 21 } }]
 * ```
 */
export function toResultContent(value: unknown): readonly (TextBlock | JsonBlock)[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  return [{ type: 'json', json: value === undefined ? null : value }];
}

/**
 * The terminal of ExecuteToolStage: runs the tool with the call's signal and
 * yields its result. An unknown tool (`tool` undefined) and a tool that throws
 * both end as error results (the thrown value is kept in `error`), so the
 * model hears about the failure and middleware can inspect it. An
 * {@link InterruptSignal} is not a failure: it passes through to halt the agent.
 *
 * @example
 * ```ts
 * for await (const event of registry.invoke(ExecuteToolStage, context, toolTerminal)) console.log(event);
 * ```
 */
export async function* toolTerminal(context: ExecuteToolContext, run: TerminalRun<unknown>): AsyncGenerator<ToolResultEvent, void, undefined> {
  const { tool, toolUse } = context;
  if (tool === undefined) {
    yield errorResult(toolUse.toolUseId, `Unknown tool "${toolUse.name}": the agent has no tool by that name.`);
    return;
  }
  let value: unknown;
  try {
    value = await tool.run(toolUse.input, {
      toolUse: { type: 'toolUse', ...toolUse },
      signal: run.signal,
      invocationState: context.invocationState,
      interrupt: context.interrupt,
    });
  } catch (error) {
    if (InterruptSignal.isInstance(error)) throw error;
    yield errorResult(toolUse.toolUseId, `Tool "${toolUse.name}" failed: ${error instanceof Error ? error.message : String(error)}`, error);
    return;
  }
  yield { type: 'toolResult', toolResult: { type: 'toolResult', toolUseId: toolUse.toolUseId, status: 'success', content: toResultContent(value) } };
}
