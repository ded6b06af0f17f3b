import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { Agent, AgentStreamStage, type Model } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, failingTurn, textTurn, toolUseTurn } from '../../src/testing/index';
import { collect, user, ZERO } from './fixtures';

describe('Agent', () => {
  describe('cancellation', () => {
    it('ends with cancelled, closes open layers, and puts back history and model state', async () => {
      const registry = new MiddlewareRegistry();
      const closed: string[] = [];
      registry.add(AgentStreamStage.Wrap, async function* outer(_context, next) {
        try {
          yield* next();
        } finally {
          closed.push('agentStream');
        }
      });
      let agent: Agent | undefined;
      const model = new ScriptedModel([
        { ...toolUseTurn([{ name: 'a', input: {} }]), stateWrites: { first: 1 } },
        { ...textTurn('never finished'), stateWrites: { second: 2 }, onCall: () => agent?.cancel() },
      ]);
      agent = new Agent({ model, registry, tools: [new ScriptedTool({ name: 'a' })], messages: [user('old')], modelState: { start: 0 } });
      const events = await collect(agent.stream('go'));
      expect(events.at(-1)).toEqual({ type: 'agentResult', stopReason: 'cancelled', message: undefined, interrupts: [], usage: ZERO });
      expect(closed).toEqual(['agentStream']);
      expect(agent.messages).toEqual([user('old')]);
      expect(agent.modelState).toEqual({ start: 0 });
    });

    it('ends with cancelled when the given signal aborts, even before the run starts', async () => {
      const model = new ScriptedModel([textTurn('ok')]);
      const agent = new Agent({ model });
      const result = await agent.invoke('go', { signal: AbortSignal.abort('stop') });
      expect([result.stopReason, model.calls.length, agent.messages.length]).toEqual(['cancelled', 0, 0]);
    });

    it('ends with cancelled when the given signal aborts during the run, and a second cancel reports nothing', async () => {
      const controller = new AbortController();
      let agent: Agent | undefined;
      let second: boolean | undefined;
      const model = new ScriptedModel([
        {
          ...textTurn('never'),
          onCall: () => {
            controller.abort('stop');
            second = agent?.cancel();
          },
        },
      ]);
      agent = new Agent({ model });
      const result = await agent.invoke('go', { signal: controller.signal });
      expect([result.stopReason, second, agent.messages.length]).toEqual(['cancelled', false, 0]);
    });

    it('reports no cancellation when no run is going', () => {
      expect(new Agent({ model: new ScriptedModel([]) }).cancel()).toEqual(false);
    });

    it('puts back history and model state when the consumer stops early', async () => {
      const model = new ScriptedModel([{ ...textTurn('a b c'), stateWrites: { x: 1 } }, textTurn('next')]);
      const agent = new Agent({ model });
      for await (const event of agent.stream('go')) if (event.type === 'textDelta') break;
      expect([agent.messages, agent.modelState]).toEqual([[], {}]);
      expect((await agent.invoke('again')).stopReason).toEqual('endTurn');
    });
  });

  describe('errors', () => {
    it('passes a model error through unchanged and puts the history back', async () => {
      const failure = new Error('overloaded');
      const agent = new Agent({ model: new ScriptedModel([failingTurn(failure)]), messages: [user('old')] });
      await expect(agent.invoke('go')).rejects.toBe(failure);
      expect(agent.messages).toEqual([user('old')]);
    });

    it('rejects a second run while one is going with ERR_AGENT_BUSY', async () => {
      let inner: unknown;
      let agent: Agent | undefined;
      const model = new ScriptedModel([
        { ...textTurn('ok'), onCall: () => void (inner = agent?.invoke('again').catch((error: unknown) => error)) },
      ]);
      agent = new Agent({ model });
      await agent.invoke('go');
      const error = (await inner) as MiddlewareError;
      expect([MiddlewareError.isInstance(error), error.code, error.stage]).toEqual([true, 'ERR_AGENT_BUSY', 'agentStream']);
    });

    it.each([
      ['no model', {}],
      ['a model without stream', { model: {} }],
      ['a tool whose run is not a function', { model: new ScriptedModel([]), tools: [{ spec: { name: 'x' }, run: 'not a function' }] }],
      ['a tool without a name', { model: new ScriptedModel([]), tools: [{ spec: {}, run: () => 'ok' }] }],
      [
        'two tools with one name',
        { model: new ScriptedModel([]), tools: [new ScriptedTool({ name: 'x' }), new ScriptedTool({ name: 'x' })] },
      ],
      ['a malformed initial message', { model: new ScriptedModel([]), messages: [{ role: 'system', content: [] }] }],
    ])('rejects %s with ERR_INVALID_OPTIONS', (_label, options) => {
      expect(() => new Agent(options as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'agentStream' }));
    });

    it.each([
      ['tools that are not an array', { tools: 5 }, 'options.tools must be an array'],
      ['a system prompt that is neither a string nor blocks', { systemPrompt: 5 }, 'options.systemPrompt must be'],
      ['system prompt blocks that are not objects', { systemPrompt: ['Be brief.'] }, 'options.systemPrompt must be'],
      ['a registry that is not a MiddlewareRegistry', { registry: {} }, 'options.registry must be a MiddlewareRegistry'],
      ['a model state that is an array', { modelState: [] }, 'options.modelState must be a plain object'],
      ['a model state that is not an object', { modelState: 5 }, 'options.modelState must be a plain object'],
      ['messages that are not an array', { messages: 'hi' }, 'options.messages must be an array of messages'],
      ['a null initial message', { messages: [null] }, 'options.messages must be an array of messages, where a message is'],
      ['a tool choice given as a string', { toolChoice: 'auto' }, 'options.toolChoice must be'],
      ['a tool choice of a tool without a name', { toolChoice: { type: 'tool' } }, 'options.toolChoice must be'],
    ])('rejects %s with ERR_INVALID_OPTIONS naming the option', (_label, options, problem) => {
      expect(() => new Agent({ model: new ScriptedModel([]), ...options } as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'agentStream', message: expect.stringContaining(problem) }),
      );
    });

    it.each([
      [
        'a string system prompt, a registry, a tool choice of one tool and a model state',
        { systemPrompt: 'Be brief.', registry: new MiddlewareRegistry(), toolChoice: { type: 'tool', name: 'x' }, modelState: { a: 1 } },
      ],
      [
        'system prompt blocks and the other tool choices',
        { systemPrompt: [{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }], toolChoice: { type: 'any' } },
      ],
    ])('accepts %s', (_label, options) => {
      expect(() => new Agent({ model: new ScriptedModel([]), ...options } as never)).not.toThrow();
    });

    it.each([
      ['a signal that is not an AbortSignal', { signal: 'stop' }],
      ['an invocationState that is not an object', { invocationState: 3 }],
      ['interruptResponses that are an array', { interruptResponses: [] }],
      ['options that are not an object', null],
    ])('rejects %s with ERR_INVALID_OPTIONS before anything runs', async (_label, options) => {
      const model = new ScriptedModel([textTurn('ok')]);
      const agent = new Agent({ model });
      await expect(agent.invoke('go', options as never)).rejects.toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'agentStream' }),
      );
      expect([model.calls.length, agent.messages.length]).toEqual([0, 0]);
    });

    describe('a model or tool the terminal cannot call', () => {
      /** The fields of the rejection of a run of `agent`, and whether its message contains `hint`. */
      async function rejection(agent: Agent, hint: string): Promise<unknown> {
        const error = (await agent.invoke('go').catch((caught: unknown) => caught)) as MiddlewareError;
        return {
          isMiddlewareError: MiddlewareError.isInstance(error),
          code: error.code,
          stage: error.stage,
          phase: error.phase,
          handler: error.handler,
          hasHint: error.message.includes(hint),
        };
      }
      const expected = (stage: string): unknown => ({
        isMiddlewareError: true,
        code: 'ERR_INVALID_HANDLER',
        stage,
        phase: 'terminal',
        handler: 'terminal',
        hasHint: true,
      });
      const events = textTurn('ok').events ?? [];

      it.each<[string, Model, string]>([
        [
          'an async stream() that returns the events (a promise)',
          {
            async stream() {
              return (async function* replay() {
                yield* events;
              })();
            },
          } as unknown as Model,
          'An async method returns a promise: write it as an async generator method, `async *stream(request, options)',
        ],
        [
          'an async stream() that rejects',
          { stream: async () => Promise.reject(new Error('late')) } as unknown as Model,
          'returned a promise',
        ],
        [
          'a stream() that returns null',
          { stream: () => null } as unknown as Model,
          "the model's stream() returned null, not an async iterable",
        ],
        ['a stream() that returns an array', { stream: () => events } as unknown as Model, 'Write it as an async generator method'],
      ])(
        'rejects %s with ERR_INVALID_HANDLER on the InvokeModelStage terminal, and the agent stays usable',
        async (_label, model, hint) => {
          const agent = new Agent({ model });
          expect(await rejection(agent, hint)).toEqual(expected('invokeModel'));
          expect(await rejection(agent, hint)).toEqual(expected('invokeModel'));
        },
      );

      it('rejects a model whose stream is no longer a function when it is called', async () => {
        const model = { stream: (new ScriptedModel([]) as { stream: unknown }).stream };
        const agent = new Agent({ model: model as Model });
        model.stream = 'gone';
        expect(await rejection(agent, 'the model\'s stream must be a method stream(request, options), got the string "gone"')).toEqual(
          expected('invokeModel'),
        );
      });

      it('rejects a tool whose run is no longer a function when it is called', async () => {
        const tool = new ScriptedTool({ name: 'a' });
        const agent = new Agent({ model: new ScriptedModel([toolUseTurn([{ name: 'a', input: {} }])]), tools: [tool] });
        (tool as { run: unknown }).run = 42;
        expect(await rejection(agent, 'tool "a" has no run function when it is called (run is ')).toEqual(expected('executeTool'));
        expect(agent.messages).toEqual([]);
      });
    });

    it('rejects malformed input with ERR_INVALID_OPTIONS', async () => {
      const agent = new Agent({ model: new ScriptedModel([]) });
      await expect(agent.invoke({ role: 'robot' } as never)).rejects.toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS' }));
    });
  });
});
