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
  decideTurn,
  endsRun,
  runOwnLoop,
  withResponse,
  type AgentEvent,
  type Interrupt,
  type Message,
  type Model,
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
export async function* ownLoop(
  registry: MiddlewareRegistry,
  model: Model,
  tools: readonly Tool[],
  conversation: Conversation,
  prompt: string,
  invocationState: Record<string, unknown> = {}, // shared by reference with every handler
): AsyncGenerator<AgentEvent> {
  const userTurn: Message[] = [{ role: 'user', content: [{ type: 'text', text: prompt }] }];
  const [toolSpecs, start]: [ToolSpec[], Conversation] = [tools.map((tool) => tool.spec), { ...conversation, halted: undefined }];
  let completed = start; // a run that throws, or whose consumer stops early, changes nothing
  const run = runOwnLoop(registry, { messages: userTurn, invocationState }, async function* (stream, signal) {
    const history = new History([...start.messages, ...stream.messages]); // the input after AgentStreamStage's Input handlers
    let [modelState, usage] = [start.modelState, ZERO_USAGE];
    const keep = (halted?: Conversation['halted']) => void (completed = { ...start, messages: history.messages, modelState, halted });
    keep(); // a run a handler ends before its first turn completes keeps the user's turn
    try {
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
        const decided = await decideTurn(registry, turnContext, { signal }); // TurnStage: maxTurns, stopWhen, your handlers
        if (decided.response !== undefined) history.replace(withResponse(history.messages, turnContext, decided)); // a handler's own response
        const ends = endsRun(decided, turnContext);
        history.append(...decided.inject, ...(ends ? decided.onRunEnd : []));
        keep(); // a completed turn, kept if an AgentStreamStage handler ends the run later
        if (!ends) continue;
        const { response = message, stoppedBy } = decided;
        return { stopReason: stoppedBy === undefined ? stopReason : 'stopped', message: response, usage, stoppedBy };
      }
    } catch (error) {
      completed = start; // a run whose call failed keeps nothing, even when errorsAsAnswers answers for it
      throw error;
    }
  });
  for await (const event of run) {
    if (event.type === 'agentResult') Object.assign(conversation, completed);
    yield event;
  }
}
