import { castDraft, produce } from 'immer';
import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/index';
import {
  Agent,
  AgentStreamStage,
  ExecuteToolStage,
  InvokeModelStage,
  ScriptedModel,
  ScriptedTool,
  failingTurn,
  textTurn,
  toolUseTurn,
  type InvokeModelContext,
  type Message,
  type ModelResultEvent,
} from '../../src/agent/index';
import { assistant, collect, user, ZERO } from './fixtures';

describe('Agent', () => {
  describe('loop', () => {
    it('runs the model, the tool, then the model again, and builds the history', async () => {
      const model = new ScriptedModel([toolUseTurn([{ name: 'add', input: { a: 1, b: 2 }, toolUseId: 't1' }], { text: 'Adding.' }), textTurn('It is 3.')]);
      const add = new ScriptedTool({ name: 'add', outcomes: [{ value: 3 }] });
      const agent = new Agent({ model, tools: [add] });
      const result = await agent.invoke('What is 1 + 2?');
      expect(agent.messages).toEqual([
        user('What is 1 + 2?'),
        { role: 'assistant', content: [{ type: 'text', text: 'Adding.' }, { type: 'toolUse', toolUseId: 't1', name: 'add', input: { a: 1, b: 2 } }] },
        { role: 'user', content: [{ type: 'toolResult', toolUseId: 't1', status: 'success', content: [{ type: 'json', json: 3 }] }] },
        assistant('It is 3.'),
      ]);
      expect(result).toEqual({ type: 'agentResult', stopReason: 'endTurn', message: assistant('It is 3.'), interrupts: [], usage: ZERO });
      expect(add.calls.map((call) => call.input)).toEqual([{ a: 1, b: 2 }]);
    });

    it('yields every event of every stage, the agent result last', async () => {
      const model = new ScriptedModel([toolUseTurn([{ name: 'echo', input: 'x', toolUseId: 't1' }]), textTurn('ok')]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'echo', outcomes: [{ value: 'x' }] })] });
      const types = (await collect(agent.stream('go'))).map((event) => event.type);
      expect(types).toEqual([
        'messageStart', 'toolUseStart', 'toolUseDelta', 'messageStop', 'modelResult',
        'toolResult',
        'messageStart', 'textDelta', 'messageStop', 'modelResult',
        'agentResult',
      ]);
    });

    it('runs several tool uses of one turn in order and answers them in one user message', async () => {
      const model = new ScriptedModel([
        toolUseTurn([{ name: 'a', input: 1, toolUseId: 'x' }, { name: 'b', input: 2, toolUseId: 'y' }]),
        textTurn('both done'),
      ]);
      const order: string[] = [];
      const tool = (name: string): ScriptedTool => new ScriptedTool({ name, respond: () => void order.push(name) });
      const agent = new Agent({ model, tools: [tool('a'), tool('b')] });
      await agent.invoke('go');
      expect(order).toEqual(['a', 'b']);
      expect(agent.messages[2]).toEqual({
        role: 'user',
        content: [
          { type: 'toolResult', toolUseId: 'x', status: 'success', content: [{ type: 'json', json: null }] },
          { type: 'toolResult', toolUseId: 'y', status: 'success', content: [{ type: 'json', json: null }] },
        ],
      });
    });

    it('sums usage over the model calls of the run', async () => {
      const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {} }], { usage }), textTurn('done', { usage })]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a' })] });
      expect((await agent.invoke('go')).usage).toEqual({ inputTokens: 20, outputTokens: 10, totalTokens: 30 });
    });

    it('accepts a message or an array of messages as input, and an initial history', async () => {
      const model = new ScriptedModel([textTurn('one'), textTurn('two')]);
      const agent = new Agent({ model, messages: [user('earlier'), assistant('reply')] });
      await agent.invoke(user('first'));
      await agent.invoke([user('second'), user('third')]);
      expect(model.calls.map((call) => call.request.messages.length)).toEqual([3, 6]);
    });

    it('ends with the model stop reason when it asks for tools but names none', async () => {
      const model = new ScriptedModel([textTurn('no tools really', { stopReason: 'toolUse' })]);
      const agent = new Agent({ model });
      expect((await agent.invoke('go')).stopReason).toEqual('toolUse');
    });
  });

  describe('context isolation', () => {
    it('hands handlers frozen contexts that share the history array and its messages', async () => {
      const seen: InvokeModelContext[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Input, (context) => {
        seen.push(context);
        return context;
      });
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {} }]), textTurn('done')]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a' })], registry });
      await agent.invoke('go');
      const [first, second] = seen as [InvokeModelContext, InvokeModelContext];
      expect([Object.isFrozen(first), Object.isFrozen(first.messages), Object.isFrozen(first.messages[0])]).toEqual([true, true, true]);
      expect(second.messages[0]).toBe(first.messages[0]);
      expect(second.messages[0]).toBe(agent.messages[0]);
      expect(model.calls[1]?.request.messages).toBe(second.messages);
    });

    it('throws at once when a handler pushes onto context.messages, and the history is untouched', async () => {
      const registry = new MiddlewareRegistry();
      let caught: unknown;
      registry.add(InvokeModelStage.Wrap, async function* pusher(context, next) {
        try {
          (context.messages as Message[]).push(user('sneaky'));
        } catch (error) {
          caught = error;
        }
        yield* next();
      });
      const agent = new Agent({ model: new ScriptedModel([textTurn('ok')]), registry });
      await agent.invoke('go');
      expect(caught).toBeInstanceOf(TypeError);
      expect(agent.messages).toEqual([user('go'), assistant('ok')]);
    });

    it('lets a handler change what the model sees with produce and next(context), without changing the history', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Wrap, async function* addNote(context, next) {
        yield* next({ ...context, messages: produce(context.messages, (draft) => void draft.push(castDraft(user('note')))) });
      });
      const model = new ScriptedModel([textTurn('ok')]);
      const agent = new Agent({ model, registry });
      await agent.invoke('go');
      expect(model.calls[0]?.request.messages).toEqual([user('go'), user('note')]);
      expect(model.calls[0]?.request.messages[0]).toBe(agent.messages[0]);
      expect(agent.messages).toEqual([user('go'), assistant('ok')]);
    });

    it('shares invocationState by reference with every handler and tool, unfrozen', async () => {
      const invocationState: Record<string, unknown> = { user: 'ada' };
      const registry = new MiddlewareRegistry();
      const states: unknown[] = [];
      registry.add(InvokeModelStage.Input, (context) => {
        states.push(context.invocationState);
        context.invocationState.calls = ((context.invocationState.calls as number | undefined) ?? 0) + 1;
        return context;
      });
      registry.add(AgentStreamStage.Input, (context) => (states.push(context.invocationState), context));
      const tool = new ScriptedTool({ name: 'a', respond: (_input, context) => void states.push(context.invocationState) });
      const agent = new Agent({ model: new ScriptedModel([toolUseTurn([{ name: 'a', input: {} }]), textTurn('ok')]), tools: [tool], registry });
      await agent.invoke('go', { invocationState });
      expect(states.every((state) => state === invocationState)).toEqual(true);
      expect(states.length).toEqual(4);
      expect(invocationState).toEqual({ user: 'ada', calls: 2 });
      expect(Object.isFrozen(invocationState)).toEqual(false);
    });

    it('hands ExecuteToolStage and AgentStreamStage handlers frozen contexts, the tool input included', async () => {
      const registry = new MiddlewareRegistry();
      const seen: boolean[][] = [];
      registry.add(ExecuteToolStage.Input, (context) => (seen.push([Object.isFrozen(context), Object.isFrozen(context.toolUse), Object.isFrozen(context.toolUse.input)]), context));
      registry.add(AgentStreamStage.Input, (context) => (seen.push([Object.isFrozen(context), Object.isFrozen(context.messages), Object.isFrozen(context.messages[0])]), context));
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: { deep: { n: 1 } } }]), textTurn('ok')]);
      await new Agent({ model, registry, tools: [new ScriptedTool({ name: 'a' })] }).invoke('go');
      expect(seen).toEqual([[true, true, true], [true, true, true]]);
    });

    it('copies what the caller passes, so the caller objects stay unfrozen and unshared', async () => {
      const input = user('go');
      const blocks = [{ text: 'sys' }];
      const initial = [assistant('hello')];
      const modelState = { count: 1 };
      const agent = new Agent({ model: new ScriptedModel([textTurn('ok')]), systemPrompt: blocks, messages: initial, modelState });
      await agent.invoke(input);
      expect([Object.isFrozen(input), Object.isFrozen(input.content), Object.isFrozen(blocks), Object.isFrozen(initial[0]), Object.isFrozen(modelState)]).toEqual([false, false, false, false, false]);
      expect(agent.messages[1]).not.toBe(input);
      (input.content as unknown as { text: string }[])[0] = { text: 'changed' };
      expect(agent.messages[1]).toEqual(user('go'));
    });
  });

  describe('model state', () => {
    it('writes the model changes and deletions back after the chain succeeds', async () => {
      const model = new ScriptedModel([{ ...textTurn('ok'), stateWrites: { added: 1 }, stateDeletes: ['gone'] }]);
      const agent = new Agent({ model, modelState: { gone: true, kept: 'yes' } });
      let duringCall: unknown;
      const registry = agent.registry;
      registry.add(InvokeModelStage.Wrap, async function* peek(_context, next) {
        yield* next();
        duringCall = agent.modelState;
      });
      await agent.invoke('go');
      expect(duringCall).toEqual({ gone: true, kept: 'yes' });
      expect(agent.modelState).toEqual({ kept: 'yes', added: 1 });
      expect(Object.isFrozen(agent.modelState)).toEqual(true);
    });

    it.each([['before'], ['after']])('drops a handler change made %s next() and keeps it from the model', async (when) => {
      const registry = new MiddlewareRegistry();
      const model = new ScriptedModel([{ ...textTurn('ok'), stateWrites: { model: 'wrote' } }]);
      const agent = new Agent({ model, registry, modelState: { start: true } });
      registry.add(InvokeModelStage.Wrap, async function* meddle(_context, next) {
        if (when === 'before') agent.modelState = { handler: 'wrote' };
        yield* next();
        if (when === 'after') agent.modelState = { handler: 'wrote' };
      });
      await agent.invoke('go');
      expect(model.calls[0]?.state).toEqual({ start: true });
      expect(agent.modelState).toEqual({ start: true, model: 'wrote' });
    });

    it('drops a handler change made in the Input phase and keeps it from the model', async () => {
      const registry = new MiddlewareRegistry();
      const model = new ScriptedModel([textTurn('ok')]);
      const agent = new Agent({ model, registry, modelState: { start: true } });
      registry.add(InvokeModelStage.Input, (context) => {
        agent.modelState = { handler: 'wrote' };
        return context;
      });
      await agent.invoke('go');
      expect([model.calls[0]?.state, agent.modelState]).toEqual([{ start: true }, { start: true }]);
    });

    it('drops a handler change when the handler short-circuits and no model call completes', async () => {
      const registry = new MiddlewareRegistry();
      const model = new ScriptedModel([]);
      const agent = new Agent({ model, registry, modelState: { start: true } });
      registry.add(InvokeModelStage.Wrap, async function* cached() {
        agent.modelState = { handler: 'wrote' };
        const result: ModelResultEvent = { type: 'modelResult', message: assistant('cached'), stopReason: 'endTurn', usage: ZERO };
        yield result;
      });
      await agent.invoke('go');
      expect([model.calls.length, agent.modelState, agent.messages]).toEqual([0, { start: true }, [user('go'), assistant('cached')]]);
    });

    it('writes nothing when the chain fails after the model completed', async () => {
      const registry = new MiddlewareRegistry();
      const failure = new Error('output failed');
      registry.add(InvokeModelStage.Output, () => {
        throw failure;
      });
      const model = new ScriptedModel([{ ...textTurn('ok'), stateWrites: { model: 'wrote' } }]);
      const agent = new Agent({ model, registry, modelState: { start: true } });
      await expect(agent.invoke('go')).rejects.toBe(failure);
      expect(agent.modelState).toEqual({ start: true });
    });

    it('lets a caller replace the model state between runs', async () => {
      const model = new ScriptedModel([textTurn('ok')]);
      const agent = new Agent({ model });
      agent.modelState = { fresh: 1 };
      await agent.invoke('go');
      expect(model.calls[0]?.state).toEqual({ fresh: 1 });
    });
  });

  describe('system prompt', () => {
    it('gives handlers a string prompt as one text block and the model both forms', async () => {
      const seen: unknown[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Input, (context) => (seen.push(context.systemPrompt), context));
      const model = new ScriptedModel([textTurn('ok')]);
      await new Agent({ model, registry, systemPrompt: 'Be brief.' }).invoke('go');
      expect(seen).toEqual([[{ text: 'Be brief.' }]]);
      expect([model.calls[0]?.request.systemPrompt, model.calls[0]?.request.systemBlocks]).toEqual(['Be brief.', [{ text: 'Be brief.' }]]);
    });

    it('passes a block prompt with cache points to handlers and the model unchanged', async () => {
      const blocks = [{ text: 'Rules.' }, { cachePoint: { type: 'default' } }, { text: 'Today.' }];
      const seen: unknown[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Input, (context) => (seen.push(context.systemPrompt), context));
      const model = new ScriptedModel([textTurn('ok')]);
      await new Agent({ model, registry, systemPrompt: blocks }).invoke('go');
      expect(seen).toEqual([blocks]);
      expect([model.calls[0]?.request.systemPrompt, model.calls[0]?.request.systemBlocks]).toEqual(['Rules.\nToday.', blocks]);
    });

    it('sends a handler replacement to the model in both forms', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Input, (context) => ({ ...context, systemPrompt: [...context.systemPrompt, { text: 'Date: today.' }] }));
      const model = new ScriptedModel([textTurn('ok')]);
      await new Agent({ model, registry, systemPrompt: 'Be brief.' }).invoke('go');
      expect([model.calls[0]?.request.systemPrompt, model.calls[0]?.request.systemBlocks]).toEqual([
        'Be brief.\nDate: today.',
        [{ text: 'Be brief.' }, { text: 'Date: today.' }],
      ]);
    });

    it('sends an empty prompt when none is configured', async () => {
      const model = new ScriptedModel([textTurn('ok')]);
      await new Agent({ model }).invoke('go');
      expect([model.calls[0]?.request.systemPrompt, model.calls[0]?.request.systemBlocks]).toEqual(['', []]);
    });
  });

  describe('authoritative chain result', () => {
    it('stores the Output-transformed message in the history', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Output, (result) =>
        result.update((draft) => {
          draft.message.content = [{ type: 'text', text: 'rewritten' }];
        }),
      );
      const agent = new Agent({ model: new ScriptedModel([textTurn('original')]), registry });
      const result = await agent.invoke('go');
      expect(agent.messages[1]).toEqual(assistant('rewritten'));
      expect(result.message).toEqual(assistant('rewritten'));
    });

    it('does not call the tool when an Output handler turns toolUse into endTurn', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Output, (result) => result.replace({ ...result.value, stopReason: 'endTurn' }));
      const tool = new ScriptedTool({ name: 'a' });
      const agent = new Agent({ model: new ScriptedModel([toolUseTurn([{ name: 'a', input: {} }])]), tools: [tool], registry });
      const result = await agent.invoke('go');
      expect([result.stopReason, tool.calls.length, agent.messages.length]).toEqual(['endTurn', 0, 2]);
    });

    it('dispatches the tools of a message a Wrap handler substituted', async () => {
      const registry = new MiddlewareRegistry();
      let calls = 0;
      registry.add(InvokeModelStage.Wrap, async function* substitute(_context, next) {
        if (calls++ > 0) return yield* next();
        const result: ModelResultEvent = {
          type: 'modelResult',
          message: { role: 'assistant', content: [{ type: 'toolUse', toolUseId: 'w1', name: 'a', input: { from: 'wrap' } }] },
          stopReason: 'toolUse',
          usage: ZERO,
        };
        yield result;
      });
      const tool = new ScriptedTool({ name: 'a' });
      const agent = new Agent({ model: new ScriptedModel([textTurn('done')]), tools: [tool], registry });
      await agent.invoke('go');
      expect(tool.calls.map((call) => [call.toolUseId, call.input])).toEqual([['w1', { from: 'wrap' }]]);
    });
  });

  describe('tools', () => {
    it('runs an unknown tool through ExecuteToolStage with tool undefined and ends in an error result', async () => {
      const registry = new MiddlewareRegistry();
      const seen: unknown[] = [];
      registry.add(ExecuteToolStage.Input, (context) => (seen.push([context.tool, context.toolUse]), context));
      const model = new ScriptedModel([toolUseTurn([{ name: 'missing', input: { q: 1 }, toolUseId: 'm1' }]), textTurn('sorry')]);
      const agent = new Agent({ model, registry });
      await agent.invoke('go');
      expect(seen).toEqual([[undefined, { name: 'missing', toolUseId: 'm1', input: { q: 1 } }]]);
      expect(agent.messages[2]).toEqual({
        role: 'user',
        content: [{ type: 'toolResult', toolUseId: 'm1', status: 'error', content: [{ type: 'text', text: 'Unknown tool "missing": the agent has no tool by that name.' }] }],
      });
    });

    it('turns a tool failure into an error result that Output handlers see with the thrown error', async () => {
      const failure = new Error('disk full');
      const registry = new MiddlewareRegistry();
      const seen: unknown[] = [];
      registry.add(ExecuteToolStage.Output, (result) => (seen.push(result.value.error), result));
      const model = new ScriptedModel([toolUseTurn([{ name: 'save', input: {}, toolUseId: 's1' }]), textTurn('failed')]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'save', outcomes: [{ error: failure }] })], registry });
      await agent.invoke('go');
      expect(seen[0]).toBe(failure);
      expect(agent.messages[2]?.content).toEqual([
        { type: 'toolResult', toolUseId: 's1', status: 'error', content: [{ type: 'text', text: 'Tool "save" failed: disk full' }] },
      ]);
    });

    it('gives the tool the run abort signal, which agent.cancel() aborts', async () => {
      let agent: Agent | undefined;
      const tool = new ScriptedTool({
        name: 'slow',
        respond: (_input, context) => {
          agent?.cancel();
          return context.signal.aborted ? 'saw abort' : 'no abort';
        },
      });
      agent = new Agent({ model: new ScriptedModel([toolUseTurn([{ name: 'slow', input: {} }])]), tools: [tool] });
      const result = await agent.invoke('go');
      expect([result.stopReason, tool.calls[0]?.signal.aborted]).toEqual(['cancelled', true]);
    });

    it('sends a string tool result as text', async () => {
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {}, toolUseId: 'a1' }]), textTurn('ok')]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a', outcomes: [{ value: 'plain' }] })] });
      await agent.invoke('go');
      expect(agent.messages[2]?.content).toEqual([{ type: 'toolResult', toolUseId: 'a1', status: 'success', content: [{ type: 'text', text: 'plain' }] }]);
    });

    it('turns a non-Error throw into an error result naming the thrown value', async () => {
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {}, toolUseId: 'a1' }]), textTurn('ok')]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a', outcomes: [{ error: 'nope' }] })] });
      await agent.invoke('go');
      expect(agent.messages[2]?.content).toEqual([{ type: 'toolResult', toolUseId: 'a1', status: 'error', content: [{ type: 'text', text: 'Tool "a" failed: nope' }] }]);
    });
  });

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
      const model = new ScriptedModel([{ ...textTurn('ok'), onCall: () => void (inner = agent?.invoke('again').catch((error: unknown) => error)) }]);
      agent = new Agent({ model });
      await agent.invoke('go');
      const error = (await inner) as MiddlewareError;
      expect([MiddlewareError.isInstance(error), error.code, error.stage]).toEqual([true, 'ERR_AGENT_BUSY', 'agentStream']);
    });

    it.each([
      ['no model', {}],
      ['a model without stream', { model: {} }],
      ['a malformed tool', { model: new ScriptedModel([]), tools: [{ spec: { name: 'x' } }] }],
      ['two tools with one name', { model: new ScriptedModel([]), tools: [new ScriptedTool({ name: 'x' }), new ScriptedTool({ name: 'x' })] }],
      ['a malformed initial message', { model: new ScriptedModel([]), messages: [{ role: 'system', content: [] }] }],
    ])('rejects %s with ERR_INVALID_OPTIONS', (_label, options) => {
      expect(() => new Agent(options as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'agentStream' }));
    });

    it.each([
      ['a signal that is not an AbortSignal', { signal: 'stop' }],
      ['an invocationState that is not an object', { invocationState: 3 }],
      ['interruptResponses that are an array', { interruptResponses: [] }],
      ['options that are not an object', null],
    ])('rejects %s with ERR_INVALID_OPTIONS before anything runs', async (_label, options) => {
      const model = new ScriptedModel([textTurn('ok')]);
      const agent = new Agent({ model });
      await expect(agent.invoke('go', options as never)).rejects.toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'agentStream' }));
      expect([model.calls.length, agent.messages.length]).toEqual([0, 0]);
    });

    it('rejects malformed input with ERR_INVALID_OPTIONS', async () => {
      const agent = new Agent({ model: new ScriptedModel([]) });
      await expect(agent.invoke({ role: 'robot' } as never)).rejects.toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS' }));
    });
  });

  describe('registry', () => {
    it('runs registered AgentStream, InvokeModel and ExecuteTool handlers in nesting order', async () => {
      const registry = new MiddlewareRegistry();
      const log: string[] = [];
      for (const stage of [AgentStreamStage, InvokeModelStage, ExecuteToolStage] as const) {
        registry.add(stage.Wrap as typeof InvokeModelStage.Wrap, async function* around(_context, next) {
          log.push(`enter ${stage.name}`);
          yield* next();
          log.push(`leave ${stage.name}`);
        });
      }
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {} }]), textTurn('ok')]);
      await new Agent({ model, registry, tools: [new ScriptedTool({ name: 'a' })] }).invoke('go');
      expect(log).toEqual([
        'enter agentStream',
        'enter invokeModel', 'leave invokeModel',
        'enter executeTool', 'leave executeTool',
        'enter invokeModel', 'leave invokeModel',
        'leave agentStream',
      ]);
    });

    it('lets an AgentStream Output handler transform the agent result', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Output, (result) => result.replace({ ...result.value, stopReason: 'maxTokens' }));
      const result = await new Agent({ model: new ScriptedModel([textTurn('ok')]), registry }).invoke('go');
      expect(result.stopReason).toEqual('maxTokens');
    });

    it('lets an AgentStream Input handler change the input messages', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Input, (context) => ({ ...context, messages: [user('replaced')] }));
      const agent = new Agent({ model: new ScriptedModel([textTurn('ok')]), registry });
      await agent.invoke('go');
      expect(agent.messages).toEqual([user('replaced'), assistant('ok')]);
    });
  });
});
