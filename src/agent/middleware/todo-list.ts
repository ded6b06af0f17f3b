/**
 * `todoList()`: a checklist the model keeps with a `write_todos` tool and
 * sees in its system prompt at every call (MW-168). The list lives in the
 * model state, so it follows the model state's rules: each attempt of a run has its own, a run keeps it only
 * when it succeeds, and a snapshot carries it to another process.
 */
import { castDraft } from 'immer';
import type { Middleware } from '../../core/index';
import { invalidOption } from '../../middleware/errors';
import { checkOptionsObject } from '../../middleware/options';
import { named } from '../../middleware/named';
import { ToolsKey } from '../tools/agent-tools';
import type { Message, ToolUseBlock } from '../types/message';
import type { Model, ModelCallOptions } from '../types/model';
import type { InvokeModelContext } from '../types/stages';
import { InvokeModelStage } from '../stages';
import type { JsonSchema, Tool } from '../types/tool';
import { parseWithZod } from './lazy-zod';

/** Where an item stands. */
export type TodoStatus = 'pending' | 'inProgress' | 'done';

/** One item of the list. */
export interface Todo {
  /** What is to be done. */
  readonly content: string;
  /** Where it stands. */
  readonly status: TodoStatus;
}

/** Options of {@link todoList}. */
export interface TodoListOptions {
  /** The description of the `write_todos` tool. Default: {@link WRITE_TODOS_DESCRIPTION}. */
  readonly description?: string;
}

/** The tool's name. */
export const WRITE_TODOS = 'write_todos';

/** The model-state key the list is kept under. */
export const TODO_STATE_KEY = 'staged-middleware.todoList';

/** The default description of `write_todos`. */
export const WRITE_TODOS_DESCRIPTION =
  'Writes your todo list for this task: pass the whole list every time, each item with its status (pending, inProgress or done). Use it for work of three steps or more, and keep exactly one item inProgress while you work on it.';

const STATUSES: readonly TodoStatus[] = ['pending', 'inProgress', 'done'];

/** The JSON Schema of the input of `write_todos`, as the model receives it. */
const INPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    todos: {
      type: 'array',
      items: {
        type: 'object',
        properties: { content: { type: 'string', minLength: 1 }, status: { type: 'string', enum: STATUSES } },
        required: ['content', 'status'],
        additionalProperties: false,
      },
    },
  },
  required: ['todos'],
  additionalProperties: false,
});

const MARKS: Readonly<Record<TodoStatus, string>> = { pending: ' ', inProgress: '~', done: 'x' };

/**
 * A bundle named `todoList`: it contributes the `write_todos` tool, whose
 * input is checked with zod (a bad input answers with an error result
 * naming the problem), and an InvokeModelStage Input handler `todoList` that
 * appends the current list to the system prompt as a block of its own and
 * has the model call keep it in the model state.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`handler: 'todoList'`) at once for bad options.
 * @example
 * ```ts
 * registry.use(todoList());
 * ```
 */
export function todoList(options: TodoListOptions = {}): Middleware {
  checkOptionsObject('todoList', options, '{ description? }');
  const description = options.description ?? WRITE_TODOS_DESCRIPTION;
  if (typeof description !== 'string') throw invalidOption('todoList', 'options.description must be a string', description);
  const tool: Tool = {
    spec: { name: WRITE_TODOS, description, inputSchema: INPUT_SCHEMA },
    async run(input) {
      const { todos } = await parseWithZod<{ todos: Todo[] }>(
        input,
        (z) =>
          z.strictObject({
            todos: z.array(z.strictObject({ content: z.string().min(1), status: z.enum(['pending', 'inProgress', 'done']) })),
          }),
        'the input is not a todo list',
      );
      return `Saved ${todos.length} todo${todos.length === 1 ? '' : 's'}.`;
    },
  };
  return {
    name: 'todoList',
    setup(registrar) {
      registrar.provide(ToolsKey, tool);
      registrar.add(InvokeModelStage.Input, named('todoList', showTodos));
    },
  };
}

/** Shows the current list to the model and has its call keep the list in the model state. */
function showTodos(context: InvokeModelContext): InvokeModelContext {
  const stored = storedTodos(context.modelState);
  const todos = latestTodos(context.messages) ?? stored;
  if (todos === undefined) return context;
  const shown = todos.length === 0 ? context.systemPrompt : [...context.systemPrompt, { text: renderTodos(todos) }];
  const model = stored !== undefined && sameTodos(stored, todos) ? context.model : modelWritingTodos(context.model, todos);
  return { ...context, systemPrompt: shown, model };
}

/**
 * The list of the latest successful `write_todos` call since the last model
 * call: in the last assistant message, answered by a success result after it.
 * Older calls are in the model state already.
 */
export function latestTodos(messages: readonly Message[]): readonly Todo[] | undefined {
  const succeeded = new Set<string>();
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as Message;
    if (message.role === 'user') {
      for (const block of message.content) if (block.type === 'toolResult' && block.status === 'success') succeeded.add(block.toolUseId);
      continue;
    }
    const calls = message.content.filter(
      (block): block is ToolUseBlock => block.type === 'toolUse' && block.name === WRITE_TODOS && succeeded.has(block.toolUseId),
    );
    for (const call of calls.reverse()) {
      const todos = (call.input as { todos?: unknown } | null)?.todos;
      if (isTodoList(todos)) return todos;
    }
    return undefined;
  }
  return undefined;
}

/** The list the model state holds, when it holds one. */
function storedTodos(state: Readonly<Record<string, unknown>> | undefined): readonly Todo[] | undefined {
  const stored = state?.[TODO_STATE_KEY];
  return isTodoList(stored) ? stored : undefined;
}

/** True for a todo list: what `write_todos` accepted (its calls are checked with zod when they run). */
function isTodoList(value: unknown): value is readonly Todo[] {
  return (
    Array.isArray(value) &&
    value.every((todo: unknown) => {
      if (typeof todo !== 'object' || todo === null) return false;
      const { content, status, ...rest } = todo as Record<string, unknown>;
      return typeof content === 'string' && content.length > 0 && STATUSES.includes(status as TodoStatus) && Object.keys(rest).length === 0;
    })
  );
}

function sameTodos(first: readonly Todo[], second: readonly Todo[]): boolean {
  return (
    first.length === second.length &&
    first.every((todo, index) => {
      const other = second[index] as Todo;
      return todo.content === other.content && todo.status === other.status;
    })
  );
}

/**
 * The system-prompt block that shows the list: `Current todo list:`, then one
 * line per item, `- [ ] ` pending, `- [~] ` in progress, `- [x] ` done.
 */
export function renderTodos(todos: readonly Todo[]): string {
  return ['Current todo list:', ...todos.map((todo) => `- [${MARKS[todo.status]}] ${todo.content}`)].join('\n');
}

/** The model, writing `todos` to its state draft before it streams: the list enters the model state with the call. */
function modelWritingTodos(model: Model, todos: readonly Todo[]): Model {
  const stream = (request: Parameters<Model['stream']>[0], options: ModelCallOptions<Record<string, unknown>>) => {
    if (options.state !== undefined)
      (options.state as Record<string, unknown>)[TODO_STATE_KEY] = castDraft(todos.map((todo) => ({ ...todo })));
    return model.stream(request, options);
  };
  // The model's other properties (its id, say) stay readable through the prototype.
  return Object.assign(Object.create(model) as Model, { stream });
}
