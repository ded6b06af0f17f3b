/**
 * Embedding the agent stages in your own loop, without the reference Agent:
 * every model call runs through InvokeModelStage and every tool call through
 * ExecuteToolStage, so any middleware registered for them applies.
 * `examples/own-loop-adapter.ts` proves it against the agent conformance cases.
 *
 * Your own code takes these names from 'staged-middleware' and 'staged-middleware/agent'.
 */
import { MiddlewareRegistry, type SystemPrompt } from '../src/core/index';
import {
  ExecuteToolStage,
  History,
  InvokeModelStage,
  createInterrupt,
  createModelContext,
  modelTerminal,
  toolTerminal,
  type InvokeModelEvent,
  type Message,
  type Model,
  type ModelResultEvent,
  type Tool,
  type ToolResultBlock,
  type ToolResultEvent,
} from '../src/agent/index';

/** What one conversation keeps between turns. */
export interface Conversation {
  messages: readonly Message[]; // a frozen array of frozen messages, as History makes them
  modelState: Record<string, unknown>;
  readonly systemPrompt?: SystemPrompt | undefined;
}

/** Runs one turn to the end, yielding every event; the conversation changes only if the turn succeeds. */
export async function* ownLoop(
  registry: MiddlewareRegistry,
  model: Model,
  tools: readonly Tool[],
  conversation: Conversation,
  prompt: string,
  invocationState: Record<string, unknown> = {}, // shared by reference with every handler
): AsyncGenerator<InvokeModelEvent | ToolResultEvent> {
  const history = new History(conversation.messages); // takes the frozen array as it is: O(1)
  history.append({ role: 'user', content: [{ type: 'text', text: prompt }] });
  let modelState = conversation.modelState;
  const byName = new Map(tools.map((tool) => [tool.spec.name, tool]));
  const signal = new AbortController().signal;
  for (;;) {
    const context = createModelContext({
      model,
      messages: history.messages, // O(1): the context shares the history's frozen array
      systemPrompt: conversation.systemPrompt,
      toolSpecs: tools.map((tool) => tool.spec),
      invocationState,
    });
    let result: ModelResultEvent | undefined;
    // The model writes to a draft; it lands in modelState only if the whole chain succeeds.
    const state = { get: () => modelState, set: (next: Record<string, unknown>) => void (modelState = next) };
    for await (const event of registry.invoke(InvokeModelStage, context, modelTerminal, { signal, state })) {
      yield event;
      if (event.type === 'modelResult') result = event; // the last one is the chain's result
    }
    if (result === undefined) throw new Error('unreachable: every invoke ends with its result');
    history.append(result.message); // the Output-transformed message, not the raw stream
    if (result.stopReason !== 'toolUse') break;
    const answers: ToolResultBlock[] = [];
    for (const block of result.message.content) {
      if (block.type !== 'toolUse') continue;
      const toolContext = {
        tool: byName.get(block.name), // undefined for an unknown tool: the terminal answers with an error
        toolUse: { name: block.name, toolUseId: block.toolUseId, input: block.input },
        invocationState,
        signal,
        interrupt: createInterrupt(ExecuteToolStage.name, block.toolUseId, new Map()),
      };
      const answer = await registry.run(ExecuteToolStage, toolContext, toolTerminal, { signal });
      yield answer;
      // A handler's result may lack the tool's name, which providers need beside the id (MW-183).
      answers.push(typeof answer.toolResult.name === 'string' ? answer.toolResult : { ...answer.toolResult, name: block.name });
    }
    history.append({ role: 'user', content: answers });
  }
  // Reached only by a turn that succeeded: one that threw leaves the conversation as it was.
  conversation.messages = history.messages;
  conversation.modelState = modelState;
}
