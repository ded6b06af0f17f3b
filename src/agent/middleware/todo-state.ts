/**
 * What `todoList` keeps of a run (MW-330): the current list, so a handler
 * of any stage reads it during the run, and what its guards count
 * (MW-331, MW-333 – MW-335), in the run's invocation state.
 */
import { createStateKey } from '../values/state-key';
import type { StateCarrier, StateKey } from '../types/state-key';
import { isObject } from '../../util/is-object';
import { ownEntry } from '../../util/own-entry';

/** Where an item stands. */
export type TodoStatus = 'pending' | 'inProgress' | 'blocked' | 'done';

/** One item of the list. */
export interface Todo {
  /** What is to be done. */
  readonly content: string;
  /** Where it stands. */
  readonly status: TodoStatus;
}

/** The statuses, in the order the tool's schema lists them. */
export const STATUSES: readonly TodoStatus[] = ['pending', 'inProgress', 'blocked', 'done'];

/** What `todoList` keeps of a run under {@link TodoStateKey}. JSON, so a snapshot of a halted run carries it. */
export interface TodoState {
  /** The current list: the latest one `write_todos` saved, else the one the model state held when the run's first model call started. */
  readonly todos?: readonly Todo[];
  /** The tool-use id of the `write_todos` call applied since the agent's latest model call. */
  readonly applied?: string;
  /** Whether a `write_todos` call saved a list since the agent's latest model call. */
  readonly wrote: boolean;
  /** Turns in a row that ended with open items and no saved list (the stale reminder resets it). */
  readonly unchangedTurns: number;
  /** Turns in a row that ended with a blocked item in the list. */
  readonly blockedTurns: number;
  /** How often the finish guard sent the model back in this run. */
  readonly finishReminders: number;
}

/**
 * The invocation-state key under which `todoList` keeps its
 * {@link TodoState}: absent until the run's first model call or
 * `write_todos` call.
 *
 * @example
 * ```ts
 * registry.add(TurnStage.Input, (context) => {
 *   const open = TodoStateKey.get(context)?.todos?.filter((todo) => todo.status !== 'done') ?? [];
 *   console.log(`${open.length} todos open after turn ${context.turn.index}`);
 *   return context;
 * });
 * ```
 */
export const TodoStateKey: StateKey<TodoState> = /*#__PURE__*/ createStateKey<TodoState>('staged-middleware.todos');

const EMPTY: TodoState = /*#__PURE__*/ Object.freeze({ wrote: false, unchangedTurns: 0, blockedTurns: 0, finishReminders: 0 });

/**
 * The state of the run when the key holds a well-formed one (it may come
 * from a restored snapshot: outside data), else the empty state.
 */
export function readTodoState(carrier: StateCarrier): TodoState {
  const held: unknown = isObject(carrier.invocationState) ? TodoStateKey.get(carrier) : undefined;
  if (!isObject(held)) return EMPTY;
  const field = (key: string): unknown => ownEntry(held, key);
  const todos = field('todos');
  const applied = field('applied');
  const wrote = field('wrote');
  const [unchangedTurns, blockedTurns, finishReminders] = ['unchangedTurns', 'blockedTurns', 'finishReminders'].map(field);
  if ((todos !== undefined && !isTodoList(todos)) || (applied !== undefined && typeof applied !== 'string') || typeof wrote !== 'boolean')
    return EMPTY;
  if (![unchangedTurns, blockedTurns, finishReminders].every((count) => typeof count === 'number' && Number.isInteger(count) && count >= 0))
    return EMPTY;
  return Object.freeze({
    ...(todos === undefined ? {} : { todos: copyTodos(todos) }),
    ...(applied === undefined ? {} : { applied }),
    wrote,
    unchangedTurns,
    blockedTurns,
    finishReminders,
  } as TodoState);
}

/** A change of the state: a key given as undefined is removed. */
type TodoStateChange = { readonly [Key in keyof TodoState]?: TodoState[Key] | undefined };

/** Stores `state`, the run's state as the caller read it, changed by `change`, as a new frozen object. */
export function updateTodoState(carrier: StateCarrier, state: TodoState, change: TodoStateChange): TodoState {
  const next: Record<string, unknown> = { ...state, ...change };
  for (const key of Object.keys(next)) if (next[key] === undefined) delete next[key];
  return TodoStateKey.set(carrier, Object.freeze(next) as unknown as TodoState);
}

const MARKS: Readonly<Record<TodoStatus, string>> = { pending: ' ', inProgress: '~', blocked: '!', done: 'x' };

/** One line per item: `- [ ] ` pending, `- [~] ` in progress, `- [!] ` blocked, `- [x] ` done, then its content. */
export function todoLines(todos: readonly Todo[]): string {
  return todos.map((todo) => `- [${MARKS[todo.status]}] ${todo.content}`).join('\n');
}

/** True for a todo list: what `write_todos` accepted (its calls are checked with zod when they run). */
export function isTodoList(value: unknown): value is readonly Todo[] {
  return (
    Array.isArray(value) &&
    value.every((todo: unknown) => {
      if (!isObject(todo)) return false;
      const keys = Object.keys(todo);
      const content = ownEntry(todo, 'content');
      const status = ownEntry(todo, 'status');
      return keys.length === 2 && typeof content === 'string' && content.length > 0 && STATUSES.includes(status as TodoStatus);
    })
  );
}

/** A frozen copy of a list, each item a new frozen object. */
export function copyTodos(todos: readonly Todo[]): readonly Todo[] {
  return Object.freeze(todos.map(({ content, status }) => Object.freeze({ content, status })));
}
