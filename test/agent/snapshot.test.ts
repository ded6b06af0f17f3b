import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { Agent, type AgentSnapshot, AgentStreamStage, ExecuteToolStage, MemorySessionStore } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { assistant, user, ZERO } from './fixtures';

/** The fields MW-032 makes normative, and whether the message holds `includes`. */
function failure(run: () => unknown, includes = ''): unknown {
  try {
    run();
    return 'no error';
  } catch (error) {
    if (!MiddlewareError.isInstance(error)) throw error;
    return { code: error.code, stage: error.stage, says: error.message.includes(includes) };
  }
}

/** An agent halted on a question about its whole run, asked with `reason`. */
async function haltedAtStart(reason: unknown, invocationState: Record<string, unknown>): Promise<Agent> {
  const registry = new MiddlewareRegistry();
  registry.add(AgentStreamStage.Wrap, async function* gate(context, next) {
    context.interrupt({ name: 'approve', reason });
    yield* next();
  });
  const agent = new Agent({ model: new ScriptedModel([textTurn('hi')]), registry });
  await agent.invoke('go', { invocationState });
  return agent;
}

describe('Agent', () => {
  describe('snapshot()', () => {
    it("keeps a halted run's input to replay, and no turn", async () => {
      const agent = await haltedAtStart('start?', {});
      expect(agent.snapshot()).toEqual({
        version: 1,
        messages: [],
        modelState: {},
        usage: ZERO,
        halted: {
          interrupts: [{ id: 'agentStream:approve', name: 'approve', reason: 'start?' }],
          responses: {},
          input: [user('go')],
          turn: null,
          invocationState: {},
        },
      });
    });

    it("keeps only the invocation state's properties that have a JSON form, and a reason without one as null", async () => {
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const invocationState: Record<string, unknown> = {
        user: 'ana',
        when: new Date(0),
        callback: () => 1,
        mark: Symbol('mark'),
        big: 1n,
        cyclic,
        nothing: undefined,
      };
      Object.defineProperty(invocationState, 'broken', {
        enumerable: true,
        get: () => {
          throw new Error('no access');
        },
      });
      const agent = await haltedAtStart(() => 'not data', invocationState);
      const { halted } = agent.snapshot();
      expect([halted?.invocationState, halted?.interrupts[0]?.reason]).toStrictEqual([
        { user: 'ana', when: '1970-01-01T00:00:00.000Z' },
        null,
      ]);
    });

    it('keeps no property of an invocation state whose keys cannot be listed', async () => {
      const invocationState = new Proxy<Record<string, unknown>>(
        { user: 'ana' },
        {
          ownKeys(): never {
            throw new Error('no keys');
          },
        },
      );
      const agent = await haltedAtStart('start?', invocationState);
      expect(agent.snapshot().halted?.invocationState).toStrictEqual({});
    });

    it('is frozen and JSON through and through', async () => {
      const agent = await haltedAtStart({ steps: [1, 2] }, { user: 'ana' });
      const snapshot = agent.snapshot();
      expect([
        Object.isFrozen(snapshot),
        Object.isFrozen(snapshot.halted),
        Object.isFrozen(snapshot.halted?.interrupts[0]?.reason),
        JSON.parse(JSON.stringify(snapshot)),
      ]).toEqual([true, true, true, snapshot]);
    });

    it('throws ERR_INVALID_OPTIONS naming a model state part JSON cannot carry', () => {
      const agent = new Agent({ model: new ScriptedModel([]), modelState: { handle: { n: 1n } } });
      expect(failure(() => agent.snapshot(), 'modelState.handle.n is a BigInt')).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'agentStream',
        says: true,
      });
    });
  });

  describe('restored from a snapshot', () => {
    const snapshot: AgentSnapshot = {
      version: 1,
      messages: [user('hi'), assistant('hello')],
      modelState: { id: 'r-1' },
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      halted: null,
    };

    it("starts from its history, model state and usage, leaving the caller's snapshot unfrozen", () => {
      const given = structuredClone(snapshot);
      const agent = new Agent({ model: new ScriptedModel([]), snapshot: given });
      expect([agent.messages, agent.modelState, agent.usage, agent.pendingInterrupts, Object.isFrozen(given.messages)]).toEqual([
        snapshot.messages,
        snapshot.modelState,
        snapshot.usage,
        [],
        false,
      ]);
    });

    it('resumes a halted tool call in another agent as the first would have', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(ExecuteToolStage.Wrap, async function* approval(context, next) {
        if (context.interrupt({ name: 'approve' }).response === 'yes') yield* next();
      });
      const tool = new ScriptedTool({ name: 'rm', outcomes: [{ value: 'removed' }] });
      const first = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'rm', input: {}, toolUseId: 'r1' }])]),
        registry,
        tools: [tool],
      });
      await first.invoke('clean');
      const second = new Agent({
        model: new ScriptedModel([textTurn('done')]),
        registry,
        tools: [tool],
        snapshot: JSON.parse(JSON.stringify(first.snapshot())) as AgentSnapshot,
      });
      const result = await second.resume({ 'executeTool:r1:approve': 'yes' });
      expect([result.stopReason, second.messages.length, tool.calls.length]).toEqual(['endTurn', 4, 1]);
    });

    it.each<[string, unknown, string, string]>([
      ['a newer version', { ...snapshot, version: 2 }, 'ERR_SNAPSHOT_VERSION', 'format version 2'],
      ['a version that is not 1', { ...snapshot, version: '1' }, 'ERR_INVALID_OPTIONS', 'options.snapshot.version must be 1'],
      ['no snapshot at all', 'snapshot', 'ERR_INVALID_OPTIONS', 'options.snapshot must be an agent snapshot'],
      [
        'messages that are not messages',
        { ...snapshot, messages: [{ role: 'robot', content: [] }] },
        'ERR_INVALID_OPTIONS',
        'options.snapshot.messages',
      ],
      [
        'a halted run without interrupts',
        { ...snapshot, halted: { interrupts: [], responses: {}, input: [], turn: null, invocationState: {} } },
        'ERR_INVALID_OPTIONS',
        'options.snapshot.halted.interrupts',
      ],
      ['usage that is not counts', { ...snapshot, usage: { inputTokens: 'one' } }, 'ERR_INVALID_OPTIONS', 'options.snapshot.usage'],
      [
        'a halted turn whose results are not tool results',
        {
          ...snapshot,
          halted: {
            interrupts: [{ id: 'a', name: 'a', reason: null }],
            responses: {},
            input: [],
            turn: {
              message: { role: 'assistant', content: [{ type: 'toolUse', toolUseId: 'x', name: 'x', input: {} }] },
              results: [{ type: 'text' }],
            },
            invocationState: {},
          },
        },
        'ERR_INVALID_OPTIONS',
        'options.snapshot.halted.turn.results',
      ],
      [
        'a halted run whose turn is not an object',
        {
          ...snapshot,
          halted: { interrupts: [{ id: 'a', name: 'a', reason: null }], responses: {}, input: [], turn: 5, invocationState: {} },
        },
        'ERR_INVALID_OPTIONS',
        'options.snapshot.halted.turn',
      ],
    ])('refuses %s', (_name, given, code, says) => {
      expect(failure(() => new Agent({ model: new ScriptedModel([]), snapshot: given as AgentSnapshot }), says)).toEqual({
        code,
        stage: 'agentStream',
        says: true,
      });
    });

    it('refuses a snapshot given with messages or a model state', () => {
      expect(failure(() => new Agent({ model: new ScriptedModel([]), snapshot, messages: [] }), 'not both')).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'agentStream',
        says: true,
      });
    });
  });

  describe('fromSession()', () => {
    it('creates a new agent when the store holds nothing, with the session id in its view', async () => {
      const registry = new MiddlewareRegistry();
      const sessions: unknown[] = [];
      registry.add(AgentStreamStage.Input, (context) => {
        sessions.push(context.agent?.sessionId);
        return context;
      });
      const agent = await Agent.fromSession({
        model: new ScriptedModel([textTurn('hi')]),
        registry,
        session: { store: new MemorySessionStore(), id: 'chat-7' },
      });
      await agent.invoke('hello');
      expect([sessions, agent.messages.length]).toEqual([['chat-7'], 2]);
    });

    it.each<[string, unknown]>([
      ['a store without save', { store: { load: () => undefined }, id: 'a' }],
      ['no session object', 'chat-1'],
    ])('refuses %s', (_name, session) => {
      expect(failure(() => new Agent({ model: new ScriptedModel([]), session: session as never }), 'options.session must be')).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'agentStream',
        says: true,
      });
    });

    it('refuses a session without an id', async () => {
      await expect(
        Agent.fromSession({ model: new ScriptedModel([]), session: { store: new MemorySessionStore(), id: '' } }),
      ).rejects.toMatchObject({ code: 'ERR_INVALID_OPTIONS' });
    });
  });
});
