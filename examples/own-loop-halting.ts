/**
 * Halting a loop of your own on a question, and resuming it from a snapshot:
 * a turn's tool calls run through ExecuteToolStage (`callTools`); one asks a
 * question nobody answered (`interrupt()` throws an InterruptSignal), the
 * others still run, the turn is kept as the JSON snapshot `agent.snapshot()` writes, and a
 * later run (in any process) answers the questions and finishes the turn.
 *
 * Your own code takes these names from 'staged-middleware' and 'staged-middleware/agent'.
 */
import type { MiddlewareRegistry } from '../src/core/index';
import {
  InterruptSignal,
  callTools,
  restoreLoop,
  snapshotLoop,
  type AgentEvent,
  type AgentSnapshot,
  type History,
  type Message,
  type Tool,
  type ToolCallsResult,
} from '../src/agent/index';

/** The snapshot of a loop halted in the turn of `message` (the history's last message), to keep in any session store. */
export function halt(
  history: History,
  message: Message,
  calls: ToolCallsResult, // what callTools returned for the turn: the results found, and the questions the others wait on
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
  const { history, halted } = restoreLoop(snapshot);
  if (halted === undefined) return history;
  const toolUses = halted.message.content.filter((block) => block.type === 'toolUse');
  const responses = { ...halted.responses, ...answers }; // the answers known, by interrupt id
  const calls = yield* callTools(registry, { toolUses, tools, invocationState, results: halted.results, responses });
  if (calls.interrupts.length > 0) throw new InterruptSignal(calls.interrupts); // still waiting: halt again with halt()
  history.append({ role: 'user', content: calls.results }); // the results found before and now, in message order
  return history;
}
