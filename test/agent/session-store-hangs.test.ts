import { afterEach, describe, expect, it, vi } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, AgentStreamStage, type AgentSnapshot, type SessionStore } from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, failingTurn, textTurn, toolUseTurn } from '../../src/testing/index';
import { ZERO } from './fixtures';

/** A store that records each save as `<n> messages[ halted]` and answers the n-th save (from 1) as `answer` says. */
function recordingStore(answer: (call: number) => 'ok' | 'hang' | Error): { store: SessionStore; saves: string[] } {
  const saves: string[] = [];
  const store: SessionStore = {
    load: () => undefined,
    save: (_id: string, snapshot: AgentSnapshot) => {
      saves.push(`${snapshot.messages.length} messages${snapshot.halted === null ? '' : ' halted'}`);
      const how = answer(saves.length);
      if (how === 'hang') return new Promise<void>(() => undefined);
      return how === 'ok' ? Promise.resolve() : Promise.reject(how);
    },
  };
  return { store, saves };
}

/** Waits, a macrotask at a time, until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 0));
}

const cancelled = { type: 'agentResult', stopReason: 'cancelled', message: undefined, interrupts: [], usage: ZERO };

/** An agent whose first turn calls tool `a` (one saved turn), and whose second model call is cancelled as it starts. */
function cancelledAfterOneTurn(store: SessionStore): Agent {
  let agent: Agent | undefined;
  const model = new ScriptedModel([
    toolUseTurn([{ name: 'a', input: {}, toolUseId: 'a1' }]),
    { ...textTurn('never'), onCall: () => agent?.cancel() },
  ]);
  agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a' })], session: { store, id: 's' } });
  return agent;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Agent', () => {
  describe('with a session whose store never answers the save that puts it back', () => {
    it('ends a cancelled run as cancelled, the agent back where it was', async () => {
      const { store, saves } = recordingStore((call) => (call === 1 ? 'ok' : 'hang'));
      const agent = cancelledAfterOneTurn(store);
      expect([await agent.invoke('go'), agent.messages, saves]).toEqual([cancelled, [], ['3 messages', '0 messages']]);
    });

    it("rejects a failed run with the run's own error, the same object", async () => {
      const failure = new Error('model down');
      const { store, saves } = recordingStore((call) => (call === 1 ? 'ok' : 'hang'));
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {}, toolUseId: 'a1' }]), failingTurn(failure)]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a' })], session: { store, id: 's' } });
      await expect(agent.invoke('go')).rejects.toBe(failure);
      expect([agent.messages, saves]).toEqual([[], ['3 messages', '0 messages']]);
    });

    it('lets a consumer that stops early close the run', async () => {
      const { store, saves } = recordingStore((call) => (call === 1 ? 'ok' : 'hang'));
      const model = new ScriptedModel([toolUseTurn([{ name: 'a', input: {}, toolUseId: 'a1' }]), textTurn('unread')]);
      const agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a' })], session: { store, id: 's' } });
      const types: string[] = [];
      for await (const event of agent.stream('go')) {
        types.push(event.type);
        // The first event of the second model call: the first turn has been saved.
        if (event.type === 'messageStart' && types.includes('toolResult')) break;
      }
      expect([types, agent.messages, saves]).toEqual([
        ['messageStart', 'toolUseStart', 'toolUseDelta', 'messageStop', 'modelResult', 'toolResult', 'messageStart'],
        [],
        ['3 messages', '0 messages'],
      ]);
    });

    it('leaves the agent free for its next run at once', async () => {
      const { store } = recordingStore((call) => (call === 2 ? 'hang' : 'ok'));
      let agent: Agent | undefined;
      const model = new ScriptedModel([
        toolUseTurn([{ name: 'a', input: {}, toolUseId: 'a1' }]),
        { ...textTurn('never'), onCall: () => agent?.cancel() },
        textTurn('again'),
      ]);
      agent = new Agent({ model, tools: [new ScriptedTool({ name: 'a' })], session: { store, id: 's' } });
      await agent.invoke('go');
      expect((await agent.invoke('again')).stopReason).toEqual('endTurn');
    });
  });

  describe('with a session whose store answers at once', () => {
    it('calls the save that puts the session back before the cancelled result reaches the caller', async () => {
      const log: string[] = [];
      const { store } = recordingStore(() => 'ok');
      const logging: SessionStore = {
        load: () => undefined,
        save: (id, snapshot) => {
          log.push(`save ${snapshot.messages.length} messages`);
          return store.save(id, snapshot);
        },
      };
      const agent = cancelledAfterOneTurn(logging);
      for await (const event of agent.stream('go')) if (event.type === 'toolResult' || event.type === 'agentResult') log.push(event.type);
      expect(log).toEqual(['toolResult', 'save 3 messages', 'save 0 messages', 'agentResult']);
    });
  });

  describe('with a session whose store fails the save that puts it back', () => {
    it('ends the run as it ends without a session, and writes the failure to console.warn', async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      const { store } = recordingStore((call) => (call === 1 ? 'ok' : new Error('disk full')));
      const agent = cancelledAfterOneTurn(store);
      const result = await agent.invoke('go');
      await until(() => warn.mock.calls.length > 0);
      expect([result, warn.mock.calls]).toEqual([
        cancelled,
        [
          [
            '[staged-middleware] Agent: saving session "s" back to the agent\'s state after a run that did not commit failed: disk full. The session may hold turns of that run until the agent saves again; a store that handles its own failures catches them in save().',
          ],
        ],
      ]);
    });
  });

  describe('with a session whose store never answers the save of a commit', () => {
    it('lets agent.cancel() end the run as cancelled, the agent and the session put back', async () => {
      const { store, saves } = recordingStore((call) => (call === 2 ? 'hang' : 'ok'));
      const agent = new Agent({ model: new ScriptedModel([textTurn('hi')]), session: { store, id: 's' } });
      const running = agent.invoke('go');
      await until(() => saves.length === 2);
      agent.cancel();
      expect([await running, agent.messages, saves]).toEqual([cancelled, [], ['2 messages', '2 messages', '0 messages']]);
    });

    it('lets agent.cancel() end a run halted on a question about the whole run as cancelled, nothing pending', async () => {
      const { store, saves } = recordingStore((call) => (call === 1 ? 'hang' : 'ok'));
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Wrap, async function* gate(context, next) {
        context.interrupt({ name: 'approve' });
        yield* next();
      });
      const agent = new Agent({ model: new ScriptedModel([]), registry, session: { store, id: 's' } });
      const running = agent.invoke('go');
      await until(() => saves.length === 1);
      agent.cancel();
      expect([await running, agent.pendingInterrupts, saves]).toEqual([cancelled, [], ['0 messages halted', '0 messages']]);
    });
  });
});
