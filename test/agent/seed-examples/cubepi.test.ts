/**
 * CubePi's turn control, ported: `after_model_response` returning a
 * `TurnAction` (inject, `loop_to_model`, stop), `should_stop_after_turn`
 * with its any-true rule, and `on_run_end`, as TurnStage handlers.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../../src/core/index';
import { Agent, TurnStage, turnAction, type Message, type TurnAction, type TurnContext } from '../../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../../src/testing/index';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const textOf = (message: Message): string => message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

/** CubePi's TodoListMiddleware reminder: after a turn that ran tools, the current checklist goes back to the model. */
function todoReminder(todos: () => readonly string[]) {
  return turnAction(function todoReminder(context: TurnContext): TurnAction | undefined {
    if (context.ending || todos().length === 0) return undefined;
    return { inject: [user(`Open todos: ${todos().join(', ')}.`)] };
  });
}

/** CubePi's StructuredOutputValidator: a final answer that is not JSON sends the model back with a correction. */
const structuredOutputValidator = turnAction(function structuredOutputValidator(context) {
  if (!context.ending) return undefined;
  try {
    JSON.parse(textOf(context.turn.message));
    return undefined;
  } catch {
    return { decision: 'loopToModel', inject: [user('Reply with JSON only.')] };
  }
});

/** CubePi's `should_stop_after_turn` middlewares: each may stop, and any one stopping stops the run. */
const maxTurns = (limit: number) =>
  turnAction(function maxTurns(context) {
    return context.turn.index >= limit ? { decision: 'stop', reason: `${limit} turns` } : undefined;
  });
const budgetCap = (tokens: number) =>
  turnAction(function budgetCap(context) {
    return context.usage.totalTokens > tokens ? { decision: 'stop', reason: `over ${tokens} tokens` } : undefined;
  });

/** CubePi's `on_run_end`: messages appended to the history once the run ends, whoever ended it. */
const runSummary = turnAction(function runSummary(context) {
  return { onRunEnd: [{ role: 'assistant', content: [{ type: 'text', text: `(run ended after ${context.turn.index} turns)` }] }] };
});

describe('CubePi turn actions, ported', () => {
  it('injects the todo list after tool turns, loops a non-JSON answer back to the model and appends a summary at the end', async () => {
    const todos = ['ship the order'];
    const writeTodos = new ScriptedTool({ name: 'write_todos', respond: () => 'saved' });
    const registry = new MiddlewareRegistry();
    // Agent(middleware=[RunSummary(), StructuredOutputValidator(), TodoList()]): the first is the outermost.
    registry.add(TurnStage.Wrap, runSummary);
    registry.add(TurnStage.Wrap, structuredOutputValidator);
    registry.add(
      TurnStage.Wrap,
      todoReminder(() => todos),
    );
    const model = new ScriptedModel([
      toolUseTurn([{ name: 'write_todos', input: { todos } }]),
      textTurn('The order ships Tuesday.'),
      textTurn('{"ships":"Tuesday"}'),
    ]);
    const agent = new Agent({ model, tools: [writeTodos], registry });
    const result = await agent.invoke('When does my order ship?');
    expect([
      result.stopReason,
      agent.messages.slice(2).map((message) => `${message.role}: ${textOf(message) || message.content[0]?.type}`),
    ]).toEqual([
      'endTurn',
      [
        'user: toolResult',
        'user: Open todos: ship the order.',
        'assistant: The order ships Tuesday.',
        'user: Reply with JSON only.',
        'assistant: {"ships":"Tuesday"}',
        'assistant: (run ended after 3 turns)',
      ],
    ]);
  });

  it('stops the run when any one middleware says so, though the model wants to go on, and says which', async () => {
    const search = new ScriptedTool({ name: 'search', respond: () => 'more results' });
    const registry = new MiddlewareRegistry();
    // Agent(middleware=[MaxTurns(2), BudgetCap(1000)]): order does not matter for stopping.
    registry.add(TurnStage.Wrap, maxTurns(2));
    registry.add(TurnStage.Wrap, budgetCap(1_000));
    const usage = { inputTokens: 100, outputTokens: 10, totalTokens: 110 };
    const model = new ScriptedModel([
      toolUseTurn([{ name: 'search', input: { page: 1 } }], { usage }),
      toolUseTurn([{ name: 'search', input: { page: 2 } }], { usage }),
    ]);
    const agent = new Agent({ model, tools: [search], registry });
    const result = await agent.invoke('Find everything.');
    expect([result.stopReason, result.stoppedBy, search.calls.length, agent.messages.length]).toEqual([
      'stopped',
      { handler: 'maxTurns', reason: '2 turns' },
      2,
      5,
    ]);
  });
});
