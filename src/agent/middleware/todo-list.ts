/**
 * `todoList()`: a checklist the model keeps with a `write_todos` tool and
 * sees in its system prompt at every call (MW-168). The list lives in the
 * model state, so it follows the model state's rules: each attempt of a run has its own, a run keeps it only
 * when it succeeds, and a snapshot carries it to another process. During a
 * run, the current list is in the invocation state too (MW-330), where the
 * guards of MW-333 – MW-335 read it after each turn.
 */
import { castDraft } from 'immer';
import type { Middleware } from '../../core/index';
import { invalidOption } from '../../middleware/errors';
import { checkOptionsObject, positiveInteger } from '../../middleware/options';
import { named } from '../../middleware/named';
import { ToolsKey } from '../tools/agent-tools';
import type { SystemContentBlock } from '../../core/index';
import type { Message, ToolUseBlock } from '../types/message';
import type { Model, ModelCallOptions } from '../types/model';
import type { InvokeModelContext } from '../types/stages';
import { InvokeModelStage, TurnStage } from '../stages';
import type { JsonSchema, Tool, ToolRunContext } from '../types/tool';
import { turnAction } from '../loop/turn-action';
import { isObject } from '../../util/is-object';
import { parseWithZod } from './lazy-zod';
import { refuseUnknownOptions } from './known-options';
import { copyTodos, isTodoList, readTodoState, STATUSES, todoLines, updateTodoState, type Todo, type TodoStatus } from './todo-state';
import { todoGuards } from './todo-guards';

export type { Todo, TodoStatus } from './todo-state';

/** Options of {@link todoList}. */
export interface TodoListOptions {
  /** The description of the `write_todos` tool. Default: {@link WRITE_TODOS_DESCRIPTION}. */
  readonly description?: string;
  /** Instructions for the list in the system prompt of the agent's model calls: `true` for {@link WRITE_TODOS_INSTRUCTIONS}, or your own. Default: none. */
  readonly instructions?: boolean | string;
  /** After this many turns in a row with open items and no saved list, the model is reminded of the list. Default: never. */
  readonly staleAfter?: number;
  /** While items are pending or in progress at the end, the model is sent back, at most this many times a run. Default: never. */
  readonly finishGuard?: number;
  /** After this many turns in a row with a blocked item, the run stops (`stoppedBy: { handler: 'todoList', reason: 'blocked: <item>' }`). Default: never. */
  readonly escalateAfter?: number;
}

/** The tool's name. */
export const WRITE_TODOS = 'write_todos';

/** The model-state key the list is kept under. */
export const TODO_STATE_KEY = 'staged-middleware.todoList';

/** The default description of `write_todos`. */
export const WRITE_TODOS_DESCRIPTION =
  'Writes your todo list for this task: pass the whole list every time, each item with its status (pending, inProgress, blocked or done). Use it for work of three steps or more, and keep exactly one item inProgress while you work on it.';

/** The instructions `instructions: true` puts in the system prompt. */
export const WRITE_TODOS_INSTRUCTIONS = /*#__PURE__*/ [
  'You have a write_todos tool to keep a checklist of your work.',
  'Use it for any task of three steps or more: write the whole list before you start, keep exactly one item inProgress while you work on it, and mark each item done as soon as it is finished.',
  'Mark an item blocked when you cannot go on with it without help.',
  'Call write_todos at most once per turn, always with the whole list.',
  'Do not end your work while items are pending or inProgress: finish them, or remove the ones that no longer apply.',
].join('\n');

/** What a later `write_todos` call of a turn answers with (MW-331). */
function repeatedCallMessage(applied: string): string {
  return `write_todos was called more than once in one turn; only the first call (${applied}) was applied. Pass the whole list in one call.`;
}

/** The JSON Schema of the input of `write_todos`, as the model receives it. */
const INPUT_SCHEMA: JsonSchema = /*#__PURE__*/ Object.freeze({
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

const KNOWN_OPTIONS = ['description', 'instructions', 'staleAfter', 'finishGuard', 'escalateAfter'];
const SHAPE = '{ description?, instructions?, staleAfter?, finishGuard?, escalateAfter? }';

/**
 * A bundle named `todoList`: it contributes the `write_todos` tool, whose
 * input is checked with zod (a bad input answers with an error result
 * naming the problem; a second call in one turn answers with an error and
 * changes nothing), and an InvokeModelStage Input handler `todoList` that
 * appends the current list to the system prompt as a block of its own
 * (after the instructions, when asked for) and has the model call keep it
 * in the model state. The current list is in the run's invocation state
 * under `TodoStateKey` as soon as it is saved. With `staleAfter`,
 * `finishGuard` or `escalateAfter`, a TurnStage Wrap handler `todoList`
 * reminds, sends back or stops.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`handler: 'todoList'`) at once for bad or unknown options.
 * @example
 * ```ts
 * registry.use(todoList({ instructions: true, finishGuard: 2, staleAfter: 4, escalateAfter: 3 }));
 * ```
 */
export function todoList(options: TodoListOptions = {}): Middleware {
  checkOptionsObject('todoList', options, SHAPE);
  refuseUnknownOptions('todoList', options, KNOWN_OPTIONS, SHAPE);
  const description = options.description ?? WRITE_TODOS_DESCRIPTION;
  if (typeof description !== 'string') throw invalidOption('todoList', 'options.description must be a string', description);
  const instructions: unknown = options.instructions ?? false;
  if (typeof instructions !== 'boolean' && typeof instructions !== 'string')
    throw invalidOption('todoList', 'options.instructions must be a boolean or a string', instructions);
  const guard = (name: 'staleAfter' | 'finishGuard' | 'escalateAfter'): number | undefined =>
    options[name] === undefined ? undefined : positiveInteger('todoList', `options.${name}`, options[name]);
  const guards = { staleAfter: guard('staleAfter'), finishGuard: guard('finishGuard'), escalateAfter: guard('escalateAfter') };
  const instructionBlock: SystemContentBlock | undefined =
    instructions === false ? undefined : { text: instructions === true ? WRITE_TODOS_INSTRUCTIONS : instructions };
  const tool: Tool = {
    spec: { name: WRITE_TODOS, description, inputSchema: INPUT_SCHEMA },
    async run(input, context: ToolRunContext | undefined) {
      // A tool called outside a run (a test, an own loop without state) saves nothing but still checks.
      const carrier = isObject(context) && isObject(context.invocationState) ? context : undefined;
      if (carrier !== undefined) {
        const state = readTodoState(carrier);
        if (state.applied !== undefined && state.applied !== carrier.toolUse.toolUseId) throw new Error(repeatedCallMessage(state.applied));
        updateTodoState(carrier, state, { applied: carrier.toolUse.toolUseId });
      }
      const { todos } = await parseWithZod<{ todos: Todo[] }>(
        input,
        (z) =>
          z.strictObject({
            todos: z.array(z.strictObject({ content: z.string().min(1), status: z.enum(STATUSES as [TodoStatus, ...TodoStatus[]]) })),
          }),
        'the input is not a todo list',
      );
      // Read again: another handler may have changed the state while the input was parsed.
      if (carrier !== undefined) updateTodoState(carrier, readTodoState(carrier), { todos: copyTodos(todos), wrote: true });
      return `Saved ${todos.length} todo${todos.length === 1 ? '' : 's'}.`;
    },
  };
  const showTodos = (context: InvokeModelContext): InvokeModelContext => {
    const stored = storedTodos(context.modelState);
    if (context.caller === undefined) {
      // A new turn: its first write_todos call is the one applied, and the run's list starts from the stored one.
      const state = readTodoState(context);
      updateTodoState(context, state, {
        wrote: false,
        applied: undefined,
        ...(state.todos === undefined && stored !== undefined ? { todos: copyTodos(stored) } : {}),
      });
    }
    const todos = latestTodos(context.messages) ?? stored;
    const withInstructions =
      instructionBlock === undefined || context.caller !== undefined ? context.systemPrompt : [...context.systemPrompt, instructionBlock];
    if (todos === undefined) return withInstructions === context.systemPrompt ? context : { ...context, systemPrompt: withInstructions };
    const shown = todos.length === 0 ? withInstructions : [...withInstructions, { text: renderTodos(todos) }];
    const model = stored !== undefined && sameTodos(stored, todos) ? context.model : modelWritingTodos(context.model, todos);
    return { ...context, systemPrompt: shown, model };
  };
  return {
    name: 'todoList',
    setup(registrar) {
      registrar.provide(ToolsKey, tool);
      registrar.add(InvokeModelStage.Input, named('todoList', showTodos));
      if (guards.staleAfter !== undefined || guards.finishGuard !== undefined || guards.escalateAfter !== undefined)
        registrar.add(TurnStage.Wrap, turnAction(todoGuards(guards)));
    },
  };
}

/**
 * The list of the first successful `write_todos` call since the last model
 * call: in the last assistant message, answered by a success result after it
 * (a later call of the turn answers with an error, MW-331). Older calls are
 * in the model state already.
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
    for (const call of calls) {
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
 * line per item, `- [ ] ` pending, `- [~] ` in progress, `- [!] ` blocked, `- [x] ` done.
 */
export function renderTodos(todos: readonly Todo[]): string {
  return todos.length === 0 ? 'Current todo list:' : `Current todo list:\n${todoLines(todos)}`;
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
