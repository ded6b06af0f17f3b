/**
 * An agent loop of its own, as a framework would embed the stages (MW-210):
 * the base loop with a system prompt, initial messages, invocation state,
 * rollback and turn control (MW-125, MW-126), and no model state: it binds
 * none. With `checkTurnResults: false` it acts on whatever TurnStage
 * delivers, as a loop written without `decideTurn` might: a decision
 * other than the three calls the model again.
 */
import {
  ExecuteToolStage,
  History,
  InvokeModelStage,
  TurnStage,
  createInterrupt,
  createModelContext,
  decideTurn,
  modelTerminal,
  toolTerminal,
  turnTerminal,
  withResponse,
  type AgentEvent,
  type Message,
  type ModelResultEvent,
  type ToolResultBlock,
  type TurnContext,
  type TurnResultEvent,
  type Usage,
} from '../../src/agent/index';
import type { AgentLoopAdapter, AgentLoopSetup } from '../../conformance/index';

/** The adapter of the loop, checking TurnStage's results or not. */
export function turnControlLoop(options: { readonly checkTurnResults: boolean }): AgentLoopAdapter {
  return {
    name: options.checkTurnResults ? 'a loop with turn control' : 'a loop acting on unchecked turn results',
    capabilities: ['systemPrompt', 'initialMessages', 'invocationState', 'rollback', 'turnControl'],
    start(setup) {
      const conversation = { messages: new History(setup.messages).messages };
      return {
        run({ input, invocationState }) {
          if (typeof input !== 'string') throw new Error('this loop takes text input only');
          return runTurns(setup, conversation, input, invocationState ?? {}, options.checkTurnResults);
        },
        get messages() {
          return conversation.messages;
        },
      };
    },
  };
}

/** One run: turns until TurnStage's decision ends it; the conversation takes the history only when the run succeeds. */
async function* runTurns(
  setup: AgentLoopSetup,
  conversation: { messages: readonly Message[] },
  input: string,
  invocationState: Record<string, unknown>,
  checkTurnResults: boolean,
): AsyncGenerator<AgentEvent> {
  const history = new History(conversation.messages);
  history.append({ role: 'user', content: [{ type: 'text', text: input }] });
  const signal = new AbortController().signal;
  let usage: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  for (let index = 1; ; index++) {
    const context = createModelContext({
      model: setup.model,
      messages: history.messages,
      systemPrompt: setup.systemPrompt,
      toolSpecs: setup.tools.map((tool) => tool.spec),
      invocationState,
    });
    let result: ModelResultEvent | undefined;
    for await (const event of setup.registry.invoke(InvokeModelStage, context, modelTerminal, { signal })) {
      yield event;
      if (event.type === 'modelResult') result = event;
    }
    if (result === undefined) throw new Error('unreachable: every invoke ends with its result');
    history.append(result.message);
    usage = {
      inputTokens: usage.inputTokens + result.usage.inputTokens,
      outputTokens: usage.outputTokens + result.usage.outputTokens,
      totalTokens: usage.totalTokens + result.usage.totalTokens,
    };
    const toolResults = result.stopReason === 'toolUse' ? yield* runTools(setup, result.message, invocationState, signal) : [];
    if (toolResults.length > 0) history.append({ role: 'user', content: toolResults });
    const turnContext: TurnContext = Object.freeze({
      messages: history.messages,
      turn: Object.freeze({ index, message: result.message, toolResults, stopReason: result.stopReason }),
      ending: toolResults.length === 0,
      usage,
      invocationState,
    });
    let decided: TurnResultEvent;
    if (checkTurnResults) {
      decided = await decideTurn(setup.registry, turnContext, { signal });
      if (decided.response !== undefined) history.replace(withResponse(history.messages, turnContext, decided));
    } else {
      let last: unknown;
      for await (const event of setup.registry.invoke(TurnStage, turnContext, turnTerminal, { signal })) last = event;
      decided = last as TurnResultEvent;
    }
    history.append(...decided.inject);
    // Written so that a decision other than the three calls the model again, as a hand-written loop might.
    const goesOn = decided.decision !== 'stop' && (decided.decision !== 'natural' || toolResults.length > 0);
    if (!goesOn) {
      history.append(...decided.onRunEnd);
      break;
    }
  }
  conversation.messages = history.messages;
}

/** Runs each tool use of the message through ExecuteToolStage, yielding each result, and returns the result blocks. */
async function* runTools(
  setup: AgentLoopSetup,
  message: Message,
  invocationState: Record<string, unknown>,
  signal: AbortSignal,
): AsyncGenerator<AgentEvent, ToolResultBlock[]> {
  const byName = new Map(setup.tools.map((tool) => [tool.spec.name, tool]));
  const answers: ToolResultBlock[] = [];
  for (const block of message.content) {
    if (block.type !== 'toolUse') continue;
    const toolContext = {
      tool: byName.get(block.name),
      toolUse: { name: block.name, toolUseId: block.toolUseId, input: block.input },
      invocationState,
      signal,
      interrupt: createInterrupt(ExecuteToolStage.name, block.toolUseId, new Map()),
    };
    const answer = await setup.registry.run(ExecuteToolStage, toolContext, toolTerminal, { signal });
    yield answer;
    answers.push(typeof answer.toolResult.name === 'string' ? answer.toolResult : { ...answer.toolResult, name: block.name });
  }
  return answers;
}
