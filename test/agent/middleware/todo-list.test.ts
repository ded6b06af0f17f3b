import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../../src/core/index';
import fc from 'fast-check';
import {
  Agent,
  InvokeModelStage,
  TodoStateKey,
  ToolsKey,
  TurnStage,
  todoList,
  type Message,
  type Model,
  type Tool,
  type ToolRunContext,
} from '../../../src/agent/index';
import { TODO_STATE_KEY, WRITE_TODOS_INSTRUCTIONS } from '../../../src/agent/middleware/todo-list';
import { readTodoState } from '../../../src/agent/middleware/todo-state';
import { ScriptedModel, textTurn, toolUseTurn } from '../../../src/testing/index';
import { latestTodos, renderTodos } from '../../../src/agent/middleware/todo-list';
import { user } from '../fixtures';
import { caught } from '../../assertions';

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
      ['instructions that are neither a boolean nor a string', { instructions: 1 }],
      ['a staleAfter of 0', { staleAfter: 0 }],
      ['a fractional finishGuard', { finishGuard: 1.5 }],
      ['an escalateAfter that is not a number', { escalateAfter: '2' }],
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

  describe('with an option it does not know', () => {
    it('throws ERR_INVALID_OPTIONS naming the option', () => {
      const error = caught(() => todoList({ systemPrompt: 'Plan.' } as never));
      expect([error.code, error.handler, error.phase, error.message.includes('unknown option systemPrompt')]).toEqual([
        'ERR_INVALID_OPTIONS',
        'todoList',
        'register',
        true,
      ]);
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
                status: { type: 'string', enum: ['pending', 'inProgress', 'blocked', 'done'] },
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

  describe('called twice in one turn', () => {
    const runContext = (toolUseId: string, invocationState: Record<string, unknown>): ToolRunContext =>
      ({ toolUse: { type: 'toolUse', toolUseId, name: 'write_todos', input: {} }, invocationState }) as unknown as ToolRunContext;

    it('applies the first call and refuses the second, keeping the first list', async () => {
      const tool = writeTodos();
      const invocationState: Record<string, unknown> = {};
      const first = await tool.run?.({ todos: [{ content: 'a', status: 'pending' }] }, runContext('w1', invocationState));
      const second = await Promise.resolve(tool.run?.({ todos: [] }, runContext('w2', invocationState))).then(
        () => undefined,
        (error: unknown) => (error as Error).message,
      );
      expect([first, second, TodoStateKey.get({ invocationState })]).toEqual([
        'Saved 1 todo.',
        'write_todos was called more than once in one turn; only the first call (w1) was applied. Pass the whole list in one call.',
        {
          todos: [{ content: 'a', status: 'pending' }],
          applied: 'w1',
          wrote: true,
          unchangedTurns: 0,
          blockedTurns: 0,
          finishReminders: 0,
        },
      ]);
    });
  });

  describe('reading the run state', () => {
    it('reads it once before and once after checking the input of a write_todos call', async () => {
      const reads: string[] = [];
      const invocationState = new Proxy<Record<string, unknown>>(
        { [TodoStateKey.name]: { wrote: false, unchangedTurns: 0, blockedTurns: 0, finishReminders: 0 } },
        {
          get(target, key, receiver) {
            if (key === TodoStateKey.name) reads.push('read');
            return Reflect.get(target, key, receiver) as unknown;
          },
        },
      );
      const toolUse = { type: 'toolUse', toolUseId: 'w1', name: 'write_todos', input: {} };
      await writeTodos().run?.({ todos: [{ content: 'a', status: 'pending' }] }, { toolUse, invocationState } as unknown as ToolRunContext);
      expect(reads).toEqual(['read', 'read']);
    });
  });

  describe('the current list during a run', () => {
    it('is readable by a TurnStage handler in the turn that wrote it', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(todoList());
      const seen: unknown[] = [];
      registry.add(TurnStage.Input, (context) => {
        seen.push(TodoStateKey.get(context)?.todos);
        return context;
      });
      const model = new ScriptedModel([
        toolUseTurn([{ name: 'write_todos', input: { todos: [{ content: 'pack', status: 'inProgress' }] } }]),
        textTurn('packing'),
      ]);
      await new Agent({ model, registry }).invoke('plan');
      expect(seen).toEqual([[{ content: 'pack', status: 'inProgress' }], [{ content: 'pack', status: 'inProgress' }]]);
    });
  });

  describe('with instructions: true', () => {
    it('puts its own instructions before the list in the agent model calls', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(todoList({ instructions: true }));
      const model = new ScriptedModel([textTurn('ok')]);
      await new Agent({ model, registry, modelState: { [TODO_STATE_KEY]: [{ content: 'a', status: 'pending' }] } }).invoke('next');
      expect(model.calls[0]?.request.systemBlocks).toEqual([{ text: WRITE_TODOS_INSTRUCTIONS }, { text: 'Current todo list:\n- [ ] a' }]);
    });
  });

  describe('with finishGuard', () => {
    it('sends the model back while items are open, at most finishGuard times, and counts the reminders', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(todoList({ finishGuard: 2 }));
      const model = new ScriptedModel([textTurn('done'), textTurn('done'), textTurn('done')]);
      const invocationState: Record<string, unknown> = {};
      const agent = new Agent({ model, registry, modelState: { [TODO_STATE_KEY]: [{ content: 'ship', status: 'pending' }] } });
      const result = await agent.invoke('go', { invocationState });
      expect([result.stopReason, model.calls.length, TodoStateKey.get({ invocationState })?.finishReminders]).toEqual(['endTurn', 3, 2]);
    });
  });

  describe('with escalateAfter', () => {
    it('stops the run naming the blocked item once it stayed blocked that many turns', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(todoList({ escalateAfter: 1 }));
      const model = new ScriptedModel([
        toolUseTurn([
          {
            name: 'write_todos',
            input: {
              todos: [
                { content: 'pay', status: 'blocked' },
                { content: 'ship', status: 'pending' },
              ],
            },
          },
        ]),
        textTurn('unreached'),
      ]);
      const result = await new Agent({ model, registry }).invoke('go');
      expect([result.stopReason, result.stoppedBy, model.calls.length]).toEqual([
        'stopped',
        { handler: 'todoList', reason: 'blocked: pay' },
        1,
      ]);
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
      'two calls in one message, the first successful one',
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
      [{ content: 'a', status: 'done' }],
    ],
    ['a call whose input is not a list', [call('w1', 'all of it'), result('w1', 'success')], undefined],
  ])('finds the list of %s', (_label, messages, expected) => {
    expect(latestTodos(messages)).toEqual(expected);
  });
});

describe('renderTodos', () => {
  it('marks pending, in-progress, blocked and done items', () => {
    expect(
      renderTodos([
        { content: 'a', status: 'pending' },
        { content: 'b', status: 'inProgress' },
        { content: 'c', status: 'blocked' },
        { content: 'd', status: 'done' },
      ]),
    ).toEqual('Current todo list:\n- [ ] a\n- [~] b\n- [!] c\n- [x] d');
  });
});

describe('readTodoState', () => {
  const empty = { wrote: false, unchangedTurns: 0, blockedTurns: 0, finishReminders: 0 };

  it.each<[string, unknown]>([
    ['a string', 'todos'],
    ['a list with an unknown status', { ...empty, todos: [{ content: 'a', status: 'finished' }] }],
    ['a negative count', { ...empty, blockedTurns: -1 }],
    ['an applied id that is not a string', { ...empty, applied: 3 }],
  ])('takes %s as the empty state', (_label, value) => {
    expect(readTodoState({ invocationState: { 'staged-middleware.todos': value } })).toEqual(empty);
  });

  it('never throws on outside data and answers a frozen state', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const invocationState = JSON.parse(`{"staged-middleware.todos":${JSON.stringify(value)}}`) as Record<string, unknown>;
        const read = readTodoState({ invocationState });
        return Object.isFrozen(read) && typeof read.wrote === 'boolean';
      }),
      { numRuns: 100 },
    );
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
