import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, AgentStreamStage, ExecuteToolStage, InvokeModelStage, type AgentEvent } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { assistant, collect, user, ZERO } from './fixtures';

describe('Agent', () => {
  describe('loop', () => {
    it('runs the model, the tool, then the model again, and builds the history', async () => {
      const model = new ScriptedModel([
        toolUseTurn([{ name: 'add', input: { a: 1, b: 2 }, toolUseId: 't1' }], { text: 'Adding.' }),
        textTurn('It is 3.'),
      ]);
      const add = new ScriptedTool({ name: 'add', outcomes: [{ value: 3 }] });
      const agent = new Agent({ model, tools: [add] });
      const result = await agent.invoke('What is 1 + 2?');
      expect(agent.messages).toEqual([
        user('What is 1 + 2?'),
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Adding.' },
            { type: 'toolUse', toolUseId: 't1', name: 'add', input: { a: 1, b: 2 } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'toolResult', toolUseId: 't1', name: 'add', status: 'success', content: [{ type: 'json', json: 3 }] }],
        },
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
        'messageStart',
        'toolUseStart',
        'toolUseDelta',
        'messageStop',
        'modelResult',
        'toolResult',
        'messageStart',
        'textDelta',
        'messageStop',
        'modelResult',
        'agentResult',
      ]);
    });

    it('runs several tool uses of one turn in order and answers them in one user message', async () => {
      const model = new ScriptedModel([
        toolUseTurn([
          { name: 'a', input: 1, toolUseId: 'x' },
          { name: 'b', input: 2, toolUseId: 'y' },
        ]),
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
          { type: 'toolResult', toolUseId: 'x', name: 'a', status: 'success', content: [{ type: 'json', json: null }] },
          { type: 'toolResult', toolUseId: 'y', name: 'b', status: 'success', content: [{ type: 'json', json: null }] },
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

  describe('invoke', () => {
    it('resolves with the last event of the stream() of a subclass that has its own', async () => {
      const last = { type: 'agentResult', stopReason: 'endTurn', message: undefined, interrupts: [], usage: ZERO } as const;
      class Replaying extends Agent {
        override async *stream(): AsyncGenerator<AgentEvent, void, undefined> {
          yield { type: 'messageStart', role: 'assistant' };
          yield last;
        }
      }
      const result = await new Replaying({ model: new ScriptedModel([textTurn('unused')]) }).invoke('go');
      expect(result).toBe(last);
    });

    it('rejects with what the run fails with, as it is', async () => {
      const failure = new Error('model down');
      const model = { stream: () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(failure) }) }) };
      await expect(new Agent({ model }).invoke('go')).rejects.toBe(failure);
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
      registry.add(InvokeModelStage.Input, (context) => ({
        ...context,
        systemPrompt: [...context.systemPrompt, { text: 'Date: today.' }],
      }));
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
        'enter invokeModel',
        'leave invokeModel',
        'enter executeTool',
        'leave executeTool',
        'enter invokeModel',
        'leave invokeModel',
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
