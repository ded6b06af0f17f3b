/**
 * Embedding the agent stages in your own loop, without the reference Agent:
 * every model call runs through InvokeModelStage and every tool call through
 * ExecuteToolStage, so any middleware registered for them applies.
 *
 * Your own code takes these names from 'staged-middleware' and 'staged-middleware/agent'.
 */
import { MiddlewareRegistry } from '../src/index';
import {
  ExecuteToolStage,
  History,
  InvokeModelStage,
  createInterrupt,
  createModelContext,
  modelTerminal,
  toolTerminal,
  type Message,
  type Model,
  type ModelResultEvent,
  type Tool,
  type ToolResultBlock,
} from '../src/agent/index';

/** Runs one conversation turn to the end; `onText` receives streamed text. */
export async function ownLoop(
  registry: MiddlewareRegistry,
  model: Model,
  tools: readonly Tool[],
  prompt: string,
  onText: (text: string) => void,
): Promise<readonly Message[]> {
  const history = new History(); // frozen messages, frozen once each
  history.append({ role: 'user', content: [{ type: 'text', text: prompt }] });
  const byName = new Map(tools.map((tool) => [tool.spec.name, tool]));
  const invocationState: Record<string, unknown> = {}; // shared by reference with every handler
  let modelState: Record<string, unknown> = {};
  const signal = new AbortController().signal;

  for (;;) {
    // O(1): the context shares the history's frozen array.
    const context = createModelContext({
      model,
      messages: history.messages,
      systemPrompt: 'You are terse.',
      toolSpecs: tools.map((tool) => tool.spec),
      invocationState,
    });
    let result: ModelResultEvent | undefined;
    const events = registry.invoke(InvokeModelStage, context, modelTerminal, {
      signal,
      // The model writes to a draft; it lands here only if the whole chain succeeds.
      state: { get: () => modelState, set: (next) => void (modelState = next) },
    });
    for await (const event of events) {
      if (event.type === 'textDelta') onText(event.text);
      if (event.type === 'modelResult') result = event; // the last one is the chain's result
    }
    if (result === undefined) throw new Error('unreachable: every invoke ends with its result');
    history.append(result.message); // the Output-transformed message, not the raw stream
    if (result.stopReason !== 'toolUse') return history.messages;

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
      const { toolResult } = await registry.run(ExecuteToolStage, toolContext, toolTerminal, { signal });
      answers.push(toolResult);
    }
    history.append({ role: 'user', content: answers });
  }
}
