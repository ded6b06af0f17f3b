/**
 * Embedding the agent stages in your own loop, without the reference Agent:
 * the run is one AgentStreamStage invoke (so `tracing` gives it one trace),
 * every model call runs through InvokeModelStage, every tool call through
 * ExecuteToolStage and every decision after a turn through TurnStage, so any
 * middleware registered for them applies (stop conditions included).
 * `examples/own-loop-adapter.ts` proves it against the agent conformance cases.
 *
 * Your own code takes these names from 'staged-middleware' and 'staged-middleware/agent'.
 */
import { MiddlewareRegistry, type SystemPrompt } from '../src/core/index';
import {
  ExecuteToolStage,
  History,
  InvokeModelStage,
  ZERO_USAGE,
  addUsage,
  createInterrupt,
  createModelContext,
  createTurnContext,
  decideTurn,
  endsRun,
  modelTerminal,
  namedToolResult,
  runOwnLoop,
  toolTerminal,
  type AgentEvent,
  type Message,
  type Model,
  type ModelResultEvent,
  type Tool,
  type ToolResultBlock,
} from '../src/agent/index';

/** What one conversation keeps between runs. */
export interface Conversation {
  messages: readonly Message[]; // a frozen array of frozen messages, as History makes them
  modelState: Record<string, unknown>;
  readonly systemPrompt?: SystemPrompt | undefined;
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
  const [toolSpecs, systemPrompt, start] = [tools.map((tool) => tool.spec), conversation.systemPrompt, { ...conversation }];
  let completed = start; // a run that throws, or whose consumer stops early, changes nothing
  const run = runOwnLoop(registry, { messages: userTurn, invocationState }, async function* (stream, signal) {
    const history = new History([...start.messages, ...stream.messages]); // the input after AgentStreamStage's Input handlers
    let [modelState, usage] = [start.modelState, ZERO_USAGE];
    const state = { get: () => modelState, set: (next: Record<string, unknown>) => void (modelState = next) }; // set if the chain succeeds
    for (let index = 1; ; index++) {
      completed = { ...start, messages: history.messages, modelState }; // what an AgentStreamStage handler stopping the run keeps
      const context = createModelContext({ model, messages: history.messages, systemPrompt, toolSpecs, invocationState });
      let result: ModelResultEvent | undefined; // the invoke's last event: the result after the Output handlers
      for await (const event of registry.invoke(InvokeModelStage, context, modelTerminal, { signal, state }))
        yield event.type === 'modelResult' ? (result = event) : event;
      if (result === undefined) throw new Error('unreachable: every invoke ends with its result');
      history.append(result.message);
      usage = addUsage(usage, result.usage);
      const toolResults: ToolResultBlock[] = [];
      for (const toolUse of result.stopReason === 'toolUse' ? result.message.content.filter((block) => block.type === 'toolUse') : []) {
        const { name, toolUseId, input } = toolUse; // an unknown tool (tool undefined) gets an error result from the terminal
        const call = { tool: tools.find((tool) => tool.spec.name === name), toolUse: { name, toolUseId, input }, invocationState, signal };
        const interrupt = createInterrupt(ExecuteToolStage.name, toolUseId, new Map());
        const answer = await registry.run(ExecuteToolStage, { ...call, interrupt }, toolTerminal, { signal });
        yield answer;
        toolResults.push(namedToolResult(answer.toolResult, toolUse)); // a handler's result may lack the name providers need
      }
      if (toolResults.length > 0) history.append({ role: 'user', content: toolResults });
      const turn = { index, message: result.message, toolResults, stopReason: result.stopReason };
      const turnContext = createTurnContext({ messages: history.messages, turn, usage, invocationState });
      const decided = await decideTurn(registry, turnContext, { signal }); // TurnStage: maxTurns, stopWhen, your handlers
      history.append(...decided.inject);
      if (!endsRun(decided, turnContext)) continue;
      history.append(...decided.onRunEnd);
      completed = { ...start, messages: history.messages, modelState };
      const { stoppedBy } = decided;
      return { stopReason: stoppedBy === undefined ? result.stopReason : 'stopped', message: result.message, usage, stoppedBy };
    }
  });
  for await (const event of run) {
    if (event.type === 'agentResult') Object.assign(conversation, completed);
    yield event;
  }
}
