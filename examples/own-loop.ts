/**
 * Embedding the agent stages in your own loop, without the reference Agent:
 * the run is one AgentStreamStage invoke (so `tracing` gives it one trace),
 * every model call runs through InvokeModelStage (`callModel`), every tool
 * call through ExecuteToolStage (`callTools`) and every decision after a turn
 * through TurnStage, so any middleware registered for them applies (stop
 * conditions included); a turn whose tools ask a question halts the run.
 * `examples/own-loop-adapter.ts` proves it against the agent conformance cases.
 *
 * Your own code takes these names from 'staged-middleware' and 'staged-middleware/agent'.
 */
import { MiddlewareRegistry, type SystemPrompt } from '../src/core/index';
import {
  History,
  ZERO_USAGE,
  addUsage,
  callModel,
  callTools,
  createTurnContext,
  runOwnLoop,
  settleTurn,
  type AgentEvent,
  type Interrupt,
  type Message,
  type Model,
  type OwnLoopBody,
  type Tool,
  type ToolResultBlock,
  type ToolSpec,
} from '../src/agent/index';

/** What one conversation keeps between runs. */
export interface Conversation {
  messages: readonly Message[]; // a frozen array of frozen messages, as History makes them
  modelState: Record<string, unknown>;
  readonly systemPrompt?: SystemPrompt | undefined;
  halted?: { interrupts: readonly Interrupt[]; message: Message; results: readonly ToolResultBlock[] } | undefined; // for snapshotLoop
}

/** One run for `prompt`, yielding every event; the conversation takes what the run completed when its agentResult comes. */
export function ownLoop(
  registry: MiddlewareRegistry,
  model: Model,
  tools: readonly Tool[],
  conversation: Conversation,
  prompt: string,
  invocationState: Record<string, unknown> = {}, // shared by reference with every handler
): AsyncGenerator<AgentEvent, void> {
  const [toolSpecs, start]: [ToolSpec[], Conversation] = [tools.map((tool) => tool.spec), { ...conversation, halted: undefined }];
  const body: OwnLoopBody<Conversation> = async function* (stream, signal, checkpoint) {
    const history = new History([...start.messages, ...stream.messages]); // the input after AgentStreamStage's Input handlers
    let [modelState, usage] = [start.modelState, ZERO_USAGE];
    const keep = (halted?: Conversation['halted']) => checkpoint({ ...start, messages: history.messages, modelState, halted });
    keep(); // kept if a handler ends the run before its first turn completes (MW-128)
    for (let index = 1; ; index++) {
      const parts = { model, messages: history.messages, systemPrompt: start.systemPrompt, toolSpecs, modelState, invocationState };
      const { message, stopReason, toolUses, ...called } = yield* callModel(registry, parts, { signal }); // InvokeModelStage
      [modelState, usage] = [called.modelState, addUsage(usage, called.usage)];
      history.append(message);
      const { results, interrupts, terminate } = yield* callTools(registry, { toolUses, tools, invocationState }, { signal });
      if (interrupts.length > 0) keep({ interrupts, message, results }); // to resume with restoreLoop(snapshotLoop(...)) and callTools
      if (interrupts.length > 0) return { stopReason: 'interrupt', message, usage, interrupts };
      if (results.length > 0) history.append({ role: 'user', content: results });
      const turn = { index, message, toolResults: results, stopReason, ...(terminate === undefined ? {} : { terminate }) };
      const turnContext = createTurnContext({ messages: history.messages, turn, usage, invocationState });
      const { ends, onRunEnd, response = message, stoppedBy } = await settleTurn(registry, history, turnContext, { signal }); // TurnStage
      if (ends) history.append(...onRunEnd);
      keep(); // a completed turn
      if (ends) return { stopReason: stoppedBy === undefined ? stopReason : 'stopped', message: response, usage, stoppedBy };
    }
  };
  return runOwnLoop(registry, { messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }], invocationState }, body, {
    conversation: { get: () => ({ ...conversation }), set: (kept) => void Object.assign(conversation, kept) }, // MW-327
  });
}
