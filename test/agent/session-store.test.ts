import { promises as fs } from 'node:fs';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import {
  Agent,
  AgentStreamStage,
  FileSessionStore,
  MemorySessionStore,
  type AgentSnapshot,
  type SessionStore,
} from '../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../src/testing/index';
import { user, ZERO } from './fixtures';

const scratch = mkdtempSync(join(tmpdir(), 'session-store-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

const snapshot: AgentSnapshot = { version: 1, messages: [user('hi')], modelState: {}, usage: ZERO, halted: null };

describe('MemorySessionStore', () => {
  it('loads a new copy of what was saved, and undefined for an unknown id', () => {
    const store = new MemorySessionStore();
    store.save('a', snapshot);
    const loaded = store.load('a');
    expect([loaded, loaded === snapshot, store.load('b')]).toEqual([snapshot, false, undefined]);
  });
});

describe('FileSessionStore', () => {
  it('saves each session to its own file, which a new store over the directory loads', async () => {
    const directory = join(scratch, 'save-and-load');
    await new FileSessionStore({ directory: `${directory}/`, fs }).save('chat/1 ü', snapshot);
    const loaded = await new FileSessionStore({ directory, fs }).load('chat/1 ü');
    expect([loaded, readdirSync(directory)]).toEqual([snapshot, ['chat%2F1%20%C3%BC.json']]);
  });

  it('loads undefined when the session has no file yet', async () => {
    expect(await new FileSessionStore({ directory: join(scratch, 'empty'), fs }).load('none')).toBeUndefined();
  });

  it('replaces the file through a temporary one, leaving no temporary file behind', async () => {
    const directory = join(scratch, 'replace');
    const store = new FileSessionStore({ directory, fs });
    const renames: string[] = [];
    const watched = new FileSessionStore({
      directory,
      fs: {
        ...fs,
        rename: async (from, to) => {
          renames.push(`${from.endsWith('.tmp')} -> ${to.slice(directory.length)}`);
          await fs.rename(from, to);
        },
      },
    });
    await store.save('s', snapshot);
    await watched.save('s', { ...snapshot, messages: [] });
    expect([renames, readdirSync(directory), (await store.load('s'))?.messages]).toEqual([['true -> /s.json'], ['s.json'], []]);
  });

  it('passes a read error other than a missing file through', async () => {
    const failure = Object.assign(new Error('permission denied'), { code: 'EACCES' });
    const store = new FileSessionStore({ directory: scratch, fs: { ...fs, readFile: () => Promise.reject(failure) } });
    await expect(store.load('s')).rejects.toBe(failure);
  });

  it.each<[string, unknown]>([
    ['no directory', { fs }],
    ['an fs without rename', { directory: scratch, fs: { readFile: fs.readFile, writeFile: fs.writeFile, mkdir: fs.mkdir } }],
  ])('throws ERR_INVALID_OPTIONS for %s', (_name, options) => {
    let thrown: unknown;
    try {
      new FileSessionStore(options as never);
    } catch (error) {
      thrown = error;
    }
    expect([MiddlewareError.isInstance(thrown), (thrown as MiddlewareError).code]).toEqual([true, 'ERR_INVALID_OPTIONS']);
  });
});

describe('Agent', () => {
  describe('with a session whose store fails', () => {
    it("rejects the run with the store's error, the same object, and keeps nothing of the run", async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      const failure = new Error('disk full');
      const store: SessionStore = { load: () => undefined, save: () => Promise.reject(failure) };
      const agent = new Agent({ model: new ScriptedModel([textTurn('hi')]), session: { store, id: 's' } });
      await expect(agent.invoke('go')).rejects.toBe(failure);
      // The save that would put the session back fails too, after the run settled: only the warning channel hears of it.
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect([agent.messages, warn.mock.calls.length]).toEqual([[], 1]);
      warn.mockRestore();
    });

    it('rejects a run halted on a question about the whole run when the halt cannot be saved, and stays as it was', async () => {
      const failure = new Error('disk full');
      const store: SessionStore = {
        load: () => undefined,
        save: (_id, saved) => (saved.halted === null ? undefined : Promise.reject(failure)),
      };
      const registry = new MiddlewareRegistry();
      registry.add(AgentStreamStage.Wrap, async function* gate(context, next) {
        context.interrupt({ name: 'approve' });
        yield* next();
      });
      const agent = new Agent({ model: new ScriptedModel([]), registry, session: { store, id: 's' } });
      await expect(agent.invoke('go')).rejects.toBe(failure);
      expect([agent.pendingInterrupts, agent.messages]).toEqual([[], []]);
    });

    it('ends a cancelled run whose save never settles, as cancelled', async () => {
      let saving = false;
      const store: SessionStore = {
        load: () => undefined,
        save: (_id, saved) => {
          // Only the save after the turn hangs; the one that restores the session after the cancel goes through.
          if (saved.messages.length === 0) return undefined;
          saving = true;
          return new Promise<void>(() => undefined);
        },
      };
      const tool = new ScriptedTool({ name: 'a' });
      const agent = new Agent({
        model: new ScriptedModel([toolUseTurn([{ name: 'a', input: {} }]), textTurn('never')]),
        tools: [tool],
        session: { store, id: 's' },
      });
      const running = agent.invoke('go');
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- save() sets saving while this awaits
      while (!saving) await new Promise((resolve) => setTimeout(resolve, 0));
      agent.cancel();
      expect([(await running).stopReason, agent.messages]).toEqual(['cancelled', []]);
    });
  });
});
