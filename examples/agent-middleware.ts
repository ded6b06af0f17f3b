/**
 * The "Agent middleware" example of docs/agent-kit.md: an agent that keeps a todo list,
 * delegates research to a sub-agent, keeps its history within a budget, ends
 * its run once it has published, and answers in JSON.
 */
import { MiddlewareRegistry } from '../src/core/index';
import {
  Agent,
  ExecuteToolStage,
  InvokeModelStage,
  afterToolCall,
  checkFinalAnswer,
  compaction,
  subagent,
  todoList,
  type Message,
  type Model,
  type Tool,
} from '../src/agent/index';

const textOf = (message: Message): string => message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

/** A research agent on `model`, with `cheapModel` for summaries and research, `search` for the researcher and `publish` for itself. */
export function researchAgent(model: Model, cheapModel: Model, search: Tool, publish: Tool): Agent {
  const registry = new MiddlewareRegistry();
  // Past 50,000 estimated tokens, all but the last 6 messages become one summary, written by the cheaper model.
  registry.use(compaction({ maxTokens: 50_000, keepRecent: 6, summarize: { model: cheapModel } }));
  // A write_todos tool, and the current list in the system prompt; the list lives in the model state.
  registry.use(todoList());
  // A `research` tool: each call runs a child agent, which inherits these handlers but none of these tools.
  registry.use(
    subagent({
      name: 'research',
      description: 'Researches one question and answers it with its sources.',
      model: cheapModel,
      tools: [search],
      systemPrompt: 'Answer in two sentences and name your sources.',
    }),
  );
  // The run ends after the turn in which `publish` ran (the turn's other tool calls still run).
  registry.add(ExecuteToolStage.Wrap, async function* endAfterPublish(context, next) {
    for await (const event of next()) yield context.toolUse.name === 'publish' ? { ...event, terminate: true } : event;
  });
  // Keys never reach the model, whichever tool printed them.
  registry.add(
    ExecuteToolStage.Output,
    afterToolCall(function redactKeys(result) {
      const content = result.toolResult.content.map((block) =>
        block.type === 'text' ? { ...block, text: block.text.replace(/sk-\w+/g, '[key]') } : block,
      );
      return { content };
    }),
  );
  // A final answer of the writer that is not JSON is asked for again with the error as feedback; no tool runs again.
  // Model handlers see every model call: the summaries (`context.caller`) and the researcher's are let through.
  registry.add(
    InvokeModelStage.Wrap,
    checkFinalAnswer({
      check: (message, context) => {
        if (context.caller === undefined && context.agent?.name === 'writer') JSON.parse(textOf(message));
      },
      maxAttempts: 3,
    }),
  );
  return new Agent({ name: 'writer', model, tools: [publish], registry, systemPrompt: 'You write short research notes.' });
}
