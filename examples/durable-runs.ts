/**
 * Durable runs: an agent whose state is saved after every turn, so a run
 * halted on a question resumes in another process, hours later. Shown in
 * docs/agent-kit.md, "Durable runs".
 */
import { promises as fs } from 'node:fs';
import {
  Agent,
  FileSessionStore,
  type AgentOptions,
  type AgentResultEvent,
  type AgentSnapshot,
  type SessionStore,
} from '../src/agent/index';

/** The agent of session `id`, going on from its last snapshot in `directory` (a new agent when there is none). */
export function openSession(options: AgentOptions, directory: string, id: string): Promise<Agent> {
  // FileSessionStore takes Node's fs from you: staged-middleware/agent itself loads in browsers too.
  return Agent.fromSession({ ...options, session: { store: new FileSessionStore({ directory, fs }), id } });
}

/** In any process, hours later: opens the session and answers every pending question with `answer`. */
export async function answerPending(options: AgentOptions, directory: string, id: string, answer: unknown): Promise<AgentResultEvent> {
  const agent = await openSession(options, directory, id);
  return agent.resume(Object.fromEntries(agent.pendingInterrupts.map((interrupt) => [interrupt.id, answer])));
}

/** A session store over any store of strings (Redis, a database): snapshots are plain JSON. */
export function textSessions(kv: {
  get(key: string): Promise<string | null>;
  set(key: string, text: string): Promise<unknown>;
}): SessionStore {
  return {
    load: async (id) => {
      const text = await kv.get(`session:${id}`);
      return text === null ? undefined : (JSON.parse(text) as AgentSnapshot);
    },
    save: async (id, snapshot) => {
      await kv.set(`session:${id}`, JSON.stringify(snapshot));
    },
  };
}
