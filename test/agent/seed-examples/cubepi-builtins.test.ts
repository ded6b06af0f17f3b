/**
 * CubePi's CompactionMiddleware, SubagentMiddleware and TodoListMiddleware,
 * ported as `compaction`, `subagent` and `todoList`.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../../src/core/index';
import {
  Agent,
  CompactionStateKey,
  TodoStateKey,
  TurnStage,
  compaction,
  subagent,
  todoList,
  type ToolResultBlock,
} from '../../../src/agent/index';
import { TODO_STATE_KEY } from '../../../src/agent/middleware/todo-list';
import { failingTurn, ScriptedModel, textTurn, toolUseTurn } from '../../../src/testing/index';
import { resultText, say, textOf } from './cubepi-messages';

describe('CubePi CompactionMiddleware, ported as compaction', () => {
  it('summarises the older turns with its own summary model, reported as a middleware call, and keeps the tail', async () => {
    // CompactionMiddleware(summary_model=cheap, max_tokens_before_compact=3): here counted in messages.
    const registry = new MiddlewareRegistry();
    const summaryModel = new ScriptedModel([
      textTurn('The user greeted twice.', { usage: { inputTokens: 30, outputTokens: 6, totalTokens: 36 } }),
    ]);
    registry.use(
      compaction({ maxTokens: 3, keepRecent: 1, countTokens: (messages) => messages.length, summarize: { model: summaryModel } }),
    );
    const model = new ScriptedModel([textTurn('Hello again!', { usage: { inputTokens: 10, outputTokens: 3, totalTokens: 13 } })]);
    const agent = new Agent({
      model,
      registry,
      messages: [say('user', 'hi'), say('assistant', 'hello'), say('user', 'hi there'), say('assistant', 'hello there')],
    });
    const result = await agent.invoke('hey');
    expect([agent.messages.map(textOf), model.calls[0]?.request.messages.length, result.usage, result.middlewareUsage]).toEqual([
      ['Summary of the earlier conversation:\nThe user greeted twice.', 'hey', 'Hello again!'],
      2,
      { inputTokens: 10, outputTokens: 3, totalTokens: 13 },
      { compaction: { inputTokens: 30, outputTokens: 6, totalTokens: 36 } },
    ]);
  });
});

describe("CubePi CompactionMiddleware's options, ported", () => {
  it('keeps a token-sized tail, prunes old tool outputs, caps the summary and falls back when the summariser fails', async () => {
    // CompactionMiddleware(summary_model=broken, max_tokens_before_compact=4, keep_tail_tokens=2, min_compact_messages=2,
    // max_summary_tokens=50, prune_tool_outputs=True): here counted in messages, a broken summariser never fails the run.
    const registry = new MiddlewareRegistry();
    const broken = new ScriptedModel([failingTurn(new Error('rate limited'))]);
    registry.use(
      compaction({
        maxTokens: 4,
        keepRecent: 1,
        keepRecentTokens: 2,
        minMessages: 2,
        maxSummaryTokens: 50,
        pruneToolOutputs: 5,
        countTokens: (messages) => messages.length,
        summarize: { model: broken },
      }),
    );
    const states: unknown[] = [];
    registry.add(TurnStage.Input, (context) => {
      states.push(CompactionStateKey.get(context)?.fallback);
      return context;
    });
    const model = new ScriptedModel([textTurn('Here is the report.')]);
    const agent = new Agent({
      model,
      registry,
      messages: [
        say('user', 'fetch the log'),
        { role: 'assistant', content: [{ type: 'toolUse', toolUseId: 'f', name: 'fetch', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'toolResult', toolUseId: 'f', name: 'fetch', status: 'success', content: [{ type: 'text', text: '0123456789' }] },
          ],
        },
        say('assistant', 'welcome'),
      ],
    });
    const result = await agent.invoke('now the report');
    expect([result.stopReason, agent.messages.map(textOf), states]).toEqual([
      'endTurn',
      [
        'Summary of the earlier conversation:\nThe summary could not be written; the earlier messages follow, shortened:\nuser: fetch the log\nassistant: [tool call fetch {}]\nuser: [tool result success: 01234 … (10 characters)]',
        'welcome',
        'now the report',
        'Here is the report.',
      ],
      [true],
    ]);
  });
});

describe('CubePi SubagentMiddleware, ported as subagent', () => {
  it('injects one tool per SubagentSpec that delegates a task to an ephemeral child agent and answers with its text', async () => {
    // SubagentMiddleware(subagents={"researcher": SubagentSpec(...), "critic": SubagentSpec(...)}, default_model=cheap)
    const cheap = new ScriptedModel([textTurn('Paris has 2.1 million people.'), textTurn('The figure is from 2023; say so.')]);
    const registry = new MiddlewareRegistry();
    registry.use(subagent({ name: 'researcher', description: 'Finds facts.', systemPrompt: 'You research.', model: cheap }));
    registry.use(subagent({ name: 'critic', description: 'Reviews a draft.', systemPrompt: 'You criticise.', model: cheap }));
    const model = new ScriptedModel([
      toolUseTurn([{ name: 'researcher', input: { task: 'Population of Paris?' }, toolUseId: 'r' }]),
      toolUseTurn([{ name: 'critic', input: { task: 'Review: Paris has 2.1 million people.' }, toolUseId: 'c' }]),
      textTurn('Paris had 2.1 million people in 2023.'),
    ]);
    const agent = new Agent({ model, registry });
    await agent.invoke('How many people live in Paris?');
    expect([
      model.calls[0]?.request.toolSpecs.map((spec) => spec.name),
      cheap.calls.map((call) => [call.request.systemPrompt, textOf(call.request.messages[0])]),
      [agent.messages[2], agent.messages[4]].map(textOf),
    ]).toEqual([
      ['researcher', 'critic'],
      [
        ['You research.', 'Population of Paris?'],
        ['You criticise.', 'Review: Paris has 2.1 million people.'],
      ],
      ['toolResult', 'toolResult'],
    ]);
    expect([agent.messages[2]?.content, agent.messages[4]?.content]).toEqual([
      [
        {
          type: 'toolResult',
          toolUseId: 'r',
          name: 'researcher',
          status: 'success',
          content: [{ type: 'text', text: 'Paris has 2.1 million people.' }],
        },
      ],
      [
        {
          type: 'toolResult',
          toolUseId: 'c',
          name: 'critic',
          status: 'success',
          content: [{ type: 'text', text: 'The figure is from 2023; say so.' }],
        },
      ],
    ]);
  });
});

describe('CubePi TodoListMiddleware, ported as todoList', () => {
  it('gives the agent write_todos, shows the current list at each model call and keeps it in the agent state', async () => {
    const registry = new MiddlewareRegistry();
    registry.use(todoList());
    const todos = [
      { content: 'Draft the email', status: 'done' },
      { content: 'Send it', status: 'inProgress' },
    ];
    const model = new ScriptedModel([toolUseTurn([{ name: 'write_todos', input: { todos } }]), textTurn('Sent.')]);
    const agent = new Agent({ model, registry, systemPrompt: 'You are an assistant.' });
    await agent.invoke('Email Sam.');
    expect([
      model.calls.map((call) => call.request.systemPrompt),
      resultText(agent.messages[2]?.content[0] as ToolResultBlock | undefined),
      agent.modelState[TODO_STATE_KEY],
    ]).toEqual([
      ['You are an assistant.', 'You are an assistant.\nCurrent todo list:\n- [x] Draft the email\n- [~] Send it'],
      'Saved 2 todos.',
      todos,
    ]);
  });
});

describe("CubePi TodoListMiddleware's guards, ported", () => {
  it('sends the model back while todos are open at the end, and a turn handler reads the list of the run', async () => {
    // TodoListMiddleware's finalization hard guard: loop_to_model with a correction message while items are open.
    const registry = new MiddlewareRegistry();
    registry.use(todoList({ instructions: true, finishGuard: 1 }));
    const seen: unknown[] = [];
    registry.add(TurnStage.Input, (context) => {
      seen.push(TodoStateKey.get(context)?.todos?.map((todo) => todo.status));
      return context;
    });
    const model = new ScriptedModel([
      toolUseTurn([{ name: 'write_todos', input: { todos: [{ content: 'Send it', status: 'inProgress' }] } }]),
      textTurn('Done, I think.'),
      toolUseTurn([{ name: 'write_todos', input: { todos: [{ content: 'Send it', status: 'done' }] } }]),
      textTurn('Sent.'),
    ]);
    const agent = new Agent({ model, registry });
    await agent.invoke('Email Sam.');
    expect([seen, textOf(agent.messages[4])]).toEqual([
      [['inProgress'], ['inProgress'], ['done'], ['done']],
      'You have unfinished todos:\n- [~] Send it\nFinish them, or update the list with write_todos (mark items done, or remove the ones that no longer apply), before you end.',
    ]);
  });
});
