import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../../src/core/index';
import { Agent, InvokeModelStage, ToolsKey, todoList, type Message, type Model, type Tool } from '../../../src/agent/index';
import { TODO_STATE_KEY } from '../../../src/agent/middleware/todo-list';
import { ScriptedModel, textTurn, toolUseTurn } from '../../../src/testing/index';
import { latestTodos, renderTodos } from '../../../src/agent/middleware/todo-list';
import { user } from '../fixtures';

/** The write_todos tool of a todoList bundle. */
function writeTodos(): Tool {
  const registry = new MiddlewareRegistry();
  registry.use(todoList());
  return registry.contributions(ToolsKey)[0]?.value as Tool;
}

const call = (id: string, todos: unknown): Message => ({
  role: 'assistant',
  content: [{ type: 'toolUse', toolUseId: id, name: 'write_todos', input: { todos } }],
});
const result = (id: string, status: 'success' | 'error'): Message => ({
  role: 'user',
  content: [{ type: 'toolResult', toolUseId: id, name: 'write_todos', status, content: [] }],
});

describe('todoList', () => {
  describe('with options it cannot use', () => {
    it.each<[string, unknown]>([
      ['options that are not an object', 'todos'],
      ['a description that is not a string', { description: 4 }],
    ])('throws ERR_INVALID_OPTIONS at once for %s', (_label, options) => {
      let error: unknown;
      try {
        todoList(options as never);
      } catch (caught) {
        error = caught;
      }
      expect([(error as MiddlewareError).code, (error as MiddlewareError).handler]).toEqual(['ERR_INVALID_OPTIONS', 'todoList']);
    });
  });

  describe('the write_todos tool', () => {
    it('describes its input as a JSON Schema of the todo list', () => {
      expect(writeTodos().spec.inputSchema).toEqual({
        type: 'object',
        properties: {
          todos: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                content: { type: 'string', minLength: 1 },
                status: { type: 'string', enum: ['pending', 'inProgress', 'done'] },
              },
              required: ['content', 'status'],
              additionalProperties: false,
            },
          },
        },
        required: ['todos'],
        additionalProperties: false,
      });
    });

    it.each<[number, string]>([
      [1, 'Saved 1 todo.'],
      [2, 'Saved 2 todos.'],
      [0, 'Saved 0 todos.'],
    ])('answers a list of %i with "%s"', async (count, answer) => {
      const todos = Array.from({ length: count }, (_, index) => ({ content: `step ${index}`, status: 'pending' }));
      await expect(writeTodos().run?.({ todos }, undefined as never)).resolves.toEqual(answer);
    });

    it.each<[string, unknown]>([
      ['an unknown status', { todos: [{ content: 'a', status: 'finished' }] }],
      ['an empty content', { todos: [{ content: '', status: 'done' }] }],
      ['a key of its own', { todos: [], extra: true }],
      ['no todos', {}],
    ])('refuses %s with a message naming the problem', async (_label, input) => {
      const error = (await Promise.resolve(writeTodos().run?.(input, undefined as never)).then(
        () => undefined,
        (caught: unknown) => caught,
      )) as Error;
      expect([
        error instanceof Error,
        error.message.startsWith('the input is not a todo list: '),
        error.message.length > 'the input is not a todo list: '.length,
      ]).toEqual([true, true, true]);
    });
  });

  describe('the model a call with a new list goes to', () => {
    it('writes the list into the state draft and keeps the other properties of the model', async () => {
      const inner = new ScriptedModel([textTurn('ok')]);
      const model = Object.assign(inner, { modelId: 'scripted-1' }) as Model & { modelId: string };
      const seen: unknown[] = [];
      const registry = new MiddlewareRegistry();
      registry.use(todoList());
      registry.add(InvokeModelStage.Wrap, async function* look(context, next) {
        seen.push((context.model as Model & { modelId?: string }).modelId);
        yield* next();
      });
      const agent = new Agent({
        model,
        registry,
        messages: [user('plan'), call('w1', [{ content: 'a', status: 'done' }]), result('w1', 'success')],
      });
      await agent.invoke('next');
      expect([seen, inner.calls[0]?.state, agent.modelState]).toEqual([
        ['scripted-1'],
        { [TODO_STATE_KEY]: [{ content: 'a', status: 'done' }] },
        { [TODO_STATE_KEY]: [{ content: 'a', status: 'done' }] },
      ]);
    });

    it('is the agent model itself when the state holds the list already', async () => {
      const model = new ScriptedModel([textTurn('ok')]);
      const seen: unknown[] = [];
      const registry = new MiddlewareRegistry();
      registry.use(todoList());
      registry.add(InvokeModelStage.Wrap, async function* look(context, next) {
        seen.push(context.model === model);
        yield* next();
      });
      await new Agent({ model, registry, modelState: { [TODO_STATE_KEY]: [{ content: 'a', status: 'pending' }] } }).invoke('next');
      expect([seen, model.calls[0]?.request.systemPrompt]).toEqual([[true], 'Current todo list:\n- [ ] a']);
    });
  });
});

describe('latestTodos', () => {
  it.each<[string, Message[], unknown]>([
    [
      'no call since the last model call',
      [
        call('w1', [{ content: 'a', status: 'done' }]),
        result('w1', 'success'),
        { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
        user('next'),
      ],
      undefined,
    ],
    ['a call answered with an error', [call('w1', [{ content: 'a', status: 'done' }]), result('w1', 'error')], undefined],
    ['a call not answered yet', [call('w1', [{ content: 'a', status: 'done' }])], undefined],
    [
      'two calls in one message, the last successful one',
      [
        {
          role: 'assistant',
          content: [
            ...call('w1', [{ content: 'a', status: 'done' }]).content,
            ...call('w2', [{ content: 'b', status: 'pending' }]).content,
          ],
        },
        { role: 'user', content: [...result('w1', 'success').content, ...result('w2', 'success').content] },
      ],
      [{ content: 'b', status: 'pending' }],
    ],
    ['a call whose input is not a list', [call('w1', 'all of it'), result('w1', 'success')], undefined],
  ])('finds the list of %s', (_label, messages, expected) => {
    expect(latestTodos(messages)).toEqual(expected);
  });
});

describe('renderTodos', () => {
  it('marks pending, in-progress and done items', () => {
    expect(
      renderTodos([
        { content: 'a', status: 'pending' },
        { content: 'b', status: 'inProgress' },
        { content: 'c', status: 'done' },
      ]),
    ).toEqual('Current todo list:\n- [ ] a\n- [~] b\n- [x] c');
  });
});

describe('an agent with a todo list and a snapshot', () => {
  it('carries the list to an agent restored in another place', async () => {
    const registry = new MiddlewareRegistry();
    registry.use(todoList());
    const first = new Agent({
      model: new ScriptedModel([
        toolUseTurn([{ name: 'write_todos', input: { todos: [{ content: 'pack', status: 'inProgress' }] } }]),
        textTurn('packing'),
      ]),
      registry,
    });
    await first.invoke('plan');
    const model = new ScriptedModel([textTurn('still packing')]);
    const restored = new Agent({ model, registry, snapshot: JSON.parse(JSON.stringify(first.snapshot())) });
    await restored.invoke('status?');
    expect(model.calls[0]?.request.systemPrompt).toEqual('Current todo list:\n- [~] pack');
  });
});
