import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, AgentStreamStage, type AgentResultEvent, type Message } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, failingTurn, textTurn, toolUseTurn } from '../../src/testing/index';
import { retry } from '../../src/middleware/index';
import { assistant, collect, hedging, user, ZERO } from './fixtures';

/** A registry with a Wrap handler on AgentStreamStage that reruns the whole run once when it throws. */
function retryingRegistry(): MiddlewareRegistry {
  const registry = new MiddlewareRegistry();
  registry.add(AgentStreamStage.Wrap, async function* retryRun(_context, next) {
    try {
      yield* next();
    } catch {
      yield* next();
    }
  });
  return registry;
}

/** The assistant message a tool-use turn asking for tool `name` (id `tool-1`, input `{}`) assembles into. */
const askFor = (name: string): Message => ({ role: 'assistant', content: [{ type: 'toolUse', toolUseId: 'tool-1', name, input: {} }] });

/** The user message answering `tool-1` (a call of tool `name`) with a string. */
const answer = (name: string, text: string): Message => ({
  role: 'user',
  content: [{ type: 'toolResult', toolUseId: 'tool-1', name, status: 'success', content: [{ type: 'text', text }] }],
});

const usage = (tokens: number): { inputTokens: number; outputTokens: number; totalTokens: number } => ({
  inputTokens: tokens,
  outputTokens: tokens,
  totalTokens: 2 * tokens,
});

describe('Agent', () => {
  describe('a retry around AgentStreamStage', () => {
    it('starts the second terminal call from the history at the start of the run, so the input is appended once', async () => {
      const model = new ScriptedModel([failingTurn(new Error('overloaded')), textTurn('Hello.')]);
      const agent = new Agent({ model, registry: retryingRegistry() });
      await agent.invoke('Hi');
      expect(agent.messages).toEqual([user('Hi'), assistant('Hello.')]);
      expect(model.calls.map((call) => call.request.messages)).toEqual([[user('Hi')], [user('Hi')]]);
    });

    it('drops the messages, model state, tool results and usage of the failed attempt', async () => {
      const model = new ScriptedModel([
        { ...toolUseTurn([{ name: 'a', input: {} }], { usage: usage(1) }), stateWrites: { attempt: 1 } },
        failingTurn(new Error('overloaded')),
        { ...toolUseTurn([{ name: 'a', input: {} }], { usage: usage(2) }), stateWrites: { attempt: 2 } },
        textTurn('done', { usage: usage(3) }),
      ]);
      const tool = new ScriptedTool({ name: 'a', outcomes: [{ value: 'first' }, { value: 'second' }] });
      const agent = new Agent({ model, tools: [tool], registry: retryingRegistry(), modelState: { start: true } });
      const result = await agent.invoke('go');
      expect(model.calls.map((call) => [call.request.messages.length, call.state])).toEqual([
        [1, { start: true }],
        [3, { start: true, attempt: 1 }],
        [1, { start: true }],
        [3, { start: true, attempt: 2 }],
      ]);
      expect(agent.messages).toEqual([user('go'), askFor('a'), answer('a', 'second'), assistant('done')]);
      expect(agent.modelState).toEqual({ start: true, attempt: 2 });
      expect(result).toEqual({ type: 'agentResult', stopReason: 'endTurn', message: assistant('done'), interrupts: [], usage: usage(5) });
    });

    it('runs a resumed turn from the pending interrupts of the start of the run, so the retry reruns the answered tool', async () => {
      const registry = new MiddlewareRegistry();
      const ask = new ScriptedTool({ name: 'ask', respond: (_input, context) => context.interrupt({ name: 'approve' }).response });
      const model = new ScriptedModel([toolUseTurn([{ name: 'ask', input: {} }]), failingTurn(new Error('overloaded')), textTurn('done')]);
      const agent = new Agent({ model, tools: [ask], registry });
      const halted = await agent.invoke('go');
      expect(halted.stopReason).toEqual('interrupt');
      registry.add(AgentStreamStage.Wrap, async function* retryRun(_context, next) {
        try {
          yield* next();
        } catch {
          yield* next();
        }
      });
      const resumed = await agent.resume({ 'executeTool:tool-1:approve': 'yes' });
      expect([resumed.stopReason, ask.calls.length, agent.pendingInterrupts]).toEqual(['endTurn', 3, []]);
      expect(agent.messages).toEqual([user('go'), askFor('ask'), answer('ask', 'yes'), assistant('done')]);
    });

    it('reports as cancelled usage every model call of the run that completed, in any attempt', async () => {
      let agent: Agent | undefined;
      const model = new ScriptedModel([
        { ...toolUseTurn([{ name: 'a', input: {} }], { usage: usage(1) }) },
        failingTurn(new Error('overloaded')),
        { ...textTurn('never'), onCall: () => agent?.cancel() },
      ]);
      agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a' })], registry: retryingRegistry() });
      const result = await agent.invoke('go');
      expect(result).toEqual({ type: 'agentResult', stopReason: 'cancelled', message: undefined, interrupts: [], usage: usage(1) });
      expect(agent.messages).toEqual([]);
    });
  });

  describe('the built-in retry around AgentStreamStage', () => {
    it('keeps only the attempt that succeeded, whatever the attempts before it appended', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Wrap, retry({ attempts: 3, backoff: () => 0 }));
      const model = new ScriptedModel([
        toolUseTurn([{ name: 'a', input: {} }]),
        failingTurn(new Error('overloaded')),
        failingTurn(new Error('overloaded')),
        textTurn('done'),
      ]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a' })], registry });
      const result = await agent.invoke('go');
      expect([result.stopReason, agent.messages]).toEqual(['endTurn', [user('go'), assistant('done')]]);
      expect(model.calls.map((call) => call.request.messages.length)).toEqual([1, 3, 1, 1]);
    });
  });

  describe('a hedge around AgentStreamStage', () => {
    it('gives each terminal call its own history, and the first one to finish is what the agent keeps', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Wrap, hedging());
      const model = new ScriptedModel([
        { ...textTurn('a slow and long answer'), stateWrites: { by: 'slow' } },
        { ...textTurn('fast'), stateWrites: { by: 'fast' } },
      ]);
      const agent = new Agent({ model, registry });
      const result = await agent.invoke('go');
      expect(model.calls.map((call) => call.request.messages)).toEqual([[user('go')], [user('go')]]);
      expect([agent.messages, agent.modelState, result.message]).toEqual([
        [user('go'), assistant('fast')],
        { by: 'fast' },
        assistant('fast'),
      ]);
    });
  });

  describe('when the run is committed', () => {
    it('commits the run before its agent result is delivered, so a consumer that stops there keeps it', async () => {
      const agent = new Agent({ model: new ScriptedModel([{ ...textTurn('ok'), stateWrites: { n: 1 } }]) });
      let seen: readonly Message[] | undefined;
      for await (const event of agent.stream('go')) {
        if (event.type === 'agentResult') {
          seen = agent.messages;
          break;
        }
      }
      expect([seen, agent.messages, agent.modelState]).toEqual([[user('go'), assistant('ok')], [user('go'), assistant('ok')], { n: 1 }]);
    });

    it('shows the history of the start of the run until then', async () => {
      const registry = new MiddlewareRegistry();
      let agent: Agent | undefined;
      const lengths: number[] = [];
      registry.add(AgentStreamStage.Wrap, async function* watch(_context, next) {
        for await (const event of next()) {
          lengths.push(agent?.messages.length ?? -1);
          yield event;
        }
      });
      agent = new Agent({ model: new ScriptedModel([textTurn('ok')]), registry, messages: [user('old')] });
      const events = await collect(agent.stream('go'));
      expect([lengths, events.length, agent.messages]).toEqual([[1, 1, 1, 1, 1], 5, [user('old'), user('go'), assistant('ok')]]);
    });

    it.each([
      ['commits', [{ ...textTurn('ok'), stateWrites: { model: 'wrote' } }], { start: true, model: 'wrote' }],
      ['commits nothing', [failingTurn(new Error('overloaded'))], { start: true }],
    ])('drops an assignment to agent.modelState made during a run that %s', async (_label, turns, expected) => {
      const registry = new MiddlewareRegistry();
      let agent: Agent | undefined;
      registry.add(AgentStreamStage.Wrap, async function* meddle(_context, next) {
        (agent as Agent).modelState = { handler: 'wrote' };
        yield* next();
      });
      const model = new ScriptedModel(turns);
      agent = new Agent({ model, registry, modelState: { start: true } });
      await agent.invoke('go').catch(() => undefined);
      expect([model.calls[0]?.state, agent.modelState]).toEqual([{ start: true }, expected]);
    });

    it('keeps the input and nothing of the turn in progress when a handler stops the terminal call before it finishes and ends the run itself (regression: the stopped run lost the user turn)', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Wrap, async function* cutShort(_context, next) {
        for await (const event of next()) {
          if (event.type === 'modelResult') break;
          yield event;
        }
        const ended: AgentResultEvent = { type: 'agentResult', stopReason: 'endTurn', message: undefined, interrupts: [], usage: ZERO };
        yield ended;
      });
      const agent = new Agent({
        model: new ScriptedModel([{ ...textTurn('ok'), stateWrites: { n: 1 } }]),
        registry,
        messages: [user('old')],
      });
      const result = await agent.invoke('go');
      expect([result.stopReason, agent.messages, agent.modelState]).toEqual(['endTurn', [user('old'), user('go')], {}]);
    });

    it('commits the stopped run before its result reaches a consumer that stops there', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Wrap, async function* cutShort(_context, next) {
        for await (const event of next()) if (event.type === 'toolResult') break;
        yield { type: 'agentResult', stopReason: 'endTurn', message: undefined, interrupts: [], usage: ZERO };
        yield { type: 'agentResult', stopReason: 'maxTokens', message: undefined, interrupts: [], usage: ZERO };
      });
      const tool = new ScriptedTool({ name: 'a' });
      const agent = new Agent({
        model: new ScriptedModel([
          { ...toolUseTurn([{ name: 'a', input: {}, toolUseId: 'a1' }]), stateWrites: { n: 1 } },
          textTurn('done'),
        ]),
        tools: [tool],
        registry,
      });
      const seen: unknown[] = [];
      for await (const event of agent.stream('go')) {
        if (event.type !== 'agentResult') continue;
        seen.push(agent.messages.length);
        break;
      }
      expect([seen, agent.messages.length, agent.modelState]).toEqual([[1], 1, {}]);
    });

    it('rolls the stopped run back when its invoke fails after the result', async () => {
      const registry = new MiddlewareRegistry();
      const late = new Error('late failure');
      registry.add(AgentStreamStage.Wrap, async function* cutShort(_context, next) {
        for await (const event of next()) if (event.type === 'modelResult') break;
        yield { type: 'agentResult', stopReason: 'endTurn', message: undefined, interrupts: [], usage: ZERO };
        throw late;
      });
      const agent = new Agent({ model: new ScriptedModel([textTurn('ok')]), registry });
      await expect(agent.invoke('go')).rejects.toBe(late);
      expect(agent.messages).toEqual([]);
    });
  });
});
