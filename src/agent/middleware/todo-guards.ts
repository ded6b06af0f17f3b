/**
 * The TurnStage side of `todoList` (MW-333 – MW-335): after each turn it
 * counts how long the list stood still and how long an item stayed
 * blocked, and decides: escalate a blocked item by stopping the run, send
 * the model back while items are open at the end, or remind it of a list
 * that went stale.
 */
import type { Message } from '../types/message';
import type { TurnAction, TurnContext } from '../types/stages';
import type { TurnDecider } from '../loop/turn-action';
import { readTodoState, todoLines, updateTodoState, type Todo } from './todo-state';

/** The guards' options, each off when undefined. */
export interface TodoGuards {
  /** Turns in a row without a saved list, while items are open, before the reminder. */
  readonly staleAfter: number | undefined;
  /** How often in a run the model is sent back while items are open at the end. */
  readonly finishGuard: number | undefined;
  /** Turns in a row with a blocked item before the run stops. */
  readonly escalateAfter: number | undefined;
}

/** One user message with one text block. */
function userMessage(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}

/** The message the finish guard sends the model back with (MW-333). */
function finishReminder(open: readonly Todo[]): Message {
  return userMessage(
    `You have unfinished todos:\n${todoLines(open)}\nFinish them, or update the list with write_todos (mark items done, or remove the ones that no longer apply), before you end.`,
  );
}

/** The message that reminds the model of a list that went stale (MW-334). */
function staleReminder(turns: number, todos: readonly Todo[]): Message {
  return userMessage(
    `Your todo list has not changed for ${turns} turns:\n${todoLines(todos)}\nUpdate it with write_todos: mark finished items done and the item you work on inProgress.`,
  );
}

/** The TurnStage decider named `todoList` that counts and guards. */
export function todoGuards(guards: TodoGuards): TurnDecider {
  const decide = (context: TurnContext): TurnAction | undefined => {
    const state = readTodoState(context);
    const todos = state.todos;
    if (todos === undefined) return undefined;
    const open = todos.filter((todo) => todo.status === 'pending' || todo.status === 'inProgress');
    const blocked = todos.filter((todo) => todo.status === 'blocked');
    const unchangedTurns = state.wrote || open.length === 0 ? 0 : state.unchangedTurns + 1;
    const blockedTurns = blocked.length === 0 ? 0 : state.blockedTurns + 1;
    const { staleAfter, finishGuard, escalateAfter } = guards;
    if (escalateAfter !== undefined && blockedTurns >= escalateAfter) {
      updateTodoState(context, state, { unchangedTurns, blockedTurns });
      return { decision: 'stop', reason: `blocked: ${(blocked[0] as Todo).content}` };
    }
    if (finishGuard !== undefined && context.ending && open.length > 0 && state.finishReminders < finishGuard) {
      updateTodoState(context, state, { unchangedTurns, blockedTurns, finishReminders: state.finishReminders + 1 });
      return { decision: 'loopToModel', inject: [finishReminder(open)] };
    }
    if (staleAfter !== undefined && !context.ending && unchangedTurns >= staleAfter) {
      updateTodoState(context, state, { unchangedTurns: 0, blockedTurns });
      return { inject: [staleReminder(unchangedTurns, todos)] };
    }
    updateTodoState(context, state, { unchangedTurns, blockedTurns });
    return undefined;
  };
  // Named by a property, not by a function expression: a bundler may rename the expression's name beside the
  // factory `todoList`, and the name is what `stoppedBy.handler` reports.
  return Object.defineProperty(decide, 'name', { value: 'todoList' });
}
