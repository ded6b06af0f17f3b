/**
 * Halting a loop of your own on a question, and resuming it from a snapshot:
 * a turn's tool calls run through ExecuteToolStage until one asks a question
 * nobody answered (`interrupt()` throws an InterruptSignal); the others still
 * run, the turn is kept as the JSON snapshot `agent.snapshot()` writes, and a
 * later run (in any process) answers the questions and finishes the turn.
 *
 * Your own code takes these names from 'staged-middleware' and 'staged-middleware/agent'.
 */
import type { MiddlewareRegistry } from '../src/core/index';
import {
  ExecuteToolStage,
  InterruptSignal,
  createInterrupt,
  namedToolResult,
  restoreLoop,
  snapshotLoop,
  toolTerminal,
  type AgentEvent,
  type AgentSnapshot,
  type History,
  type Interrupt,
  type Message,
  type Tool,
  type ToolResultBlock,
  type ToolUseBlock,
} from '../src/agent/index';

/** What a turn's tool calls came to: the results found, and the questions the others wait on. */
export interface ToolCalls {
  readonly results: ToolResultBlock[];
  readonly interrupts: Interrupt[];
}

/** Runs `toolUses` through ExecuteToolStage, in order; a call that asks a question nobody answered waits for the resume. */
export async function* callTools(
  registry: MiddlewareRegistry,
  tools: readonly Tool[],
  toolUses: readonly ToolUseBlock[],
  responses: ReadonlyMap<string, unknown>, // the answers known, by interrupt id
  invocationState: Record<string, unknown>,
): AsyncGenerator<AgentEvent, ToolCalls> {
  const calls: ToolCalls = { results: [], interrupts: [] };
  const signal = new AbortController().signal;
  for (const toolUse of toolUses) {
    const { name, toolUseId, input } = toolUse;
    const interrupt = createInterrupt(ExecuteToolStage.name, toolUseId, responses);
    const context = {
      tool: tools.find((tool) => tool.spec.name === name),
      toolUse: { name, toolUseId, input },
      invocationState,
      signal,
      interrupt,
    };
    try {
      const answer = await registry.run(ExecuteToolStage, context, toolTerminal, { signal });
      yield answer;
      calls.results.push(namedToolResult(answer.toolResult, toolUse));
    } catch (error) {
      if (!InterruptSignal.isInstance(error)) throw error;
      calls.interrupts.push(...error.interrupts);
      for (const asked of error.interrupts) yield { type: 'interrupt', interrupt: asked };
    }
  }
  return calls;
}

/** The snapshot of a loop halted in the turn of `message` (the history's last message), to keep in any session store. */
export function halt(
  history: History,
  message: Message,
  calls: ToolCalls,
  usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
): AgentSnapshot {
  const halted = { interrupts: calls.interrupts, message, results: calls.results };
  return snapshotLoop({ messages: history.messages, modelState: {}, usage, halted });
}

/** Finishes the halted turn of `snapshot` with `answers`: runs the tool uses still pending and appends every result, in message order. */
export async function* resume(
  registry: MiddlewareRegistry,
  tools: readonly Tool[],
  snapshot: AgentSnapshot,
  answers: Readonly<Record<string, unknown>>,
  invocationState: Record<string, unknown> = {},
): AsyncGenerator<AgentEvent, History> {
  const { history, halted, pending } = restoreLoop(snapshot);
  if (halted === undefined) return history;
  const responses = new Map(Object.entries({ ...halted.responses, ...answers }));
  const calls = yield* callTools(registry, tools, pending, responses, invocationState);
  if (calls.interrupts.length > 0) throw new InterruptSignal(calls.interrupts); // still waiting: halt again with halt()
  const byId = new Map([...halted.results, ...calls.results].map((result) => [result.toolUseId, result]));
  const toolUses = halted.message.content.filter((block) => block.type === 'toolUse');
  history.append({ role: 'user', content: toolUses.flatMap((toolUse) => byId.get(toolUse.toolUseId) ?? []) });
  return history;
}
