/**
 * Revisions of the memory and file stores (MW-253 – MW-256): the contract
 * every such store meets, and what is particular to each.
 */
import { promises as fs } from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Agent, FileSessionStore, MemorySessionStore, type RevisionedSessionStore } from '../../src/agent/index';
import { ScriptedModel, textTurn } from '../../src/testing/index';
import { conflictMessage, describeRevisionedStore, failureOf, snapshotSaying } from './revisioned-store-contract';

const scratch = mkdtempSync(join(tmpdir(), 'session-revisions-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});
let directories = 0;

describeRevisionedStore('MemorySessionStore', (sameAs) => sameAs ?? new MemorySessionStore());
// One store object per directory: the file store checks the saves that go through it (MW-256).
describeRevisionedStore(
  'FileSessionStore',
  (sameAs) => sameAs ?? new FileSessionStore({ directory: join(scratch, String(++directories)), fs }),
);

describe('FileSessionStore', () => {
  describe('over a file a store without revisions wrote', () => {
    it('loads the bare snapshot as revision "0", which a save expecting it replaces', async () => {
      const directory = join(scratch, 'bare');
      await fs.mkdir(directory);
      writeFileSync(join(directory, 's.json'), `${JSON.stringify(snapshotSaying('old'))}\n`);
      const store = new FileSessionStore({ directory, fs });
      const before = await store.loadRecord('s');
      const revision = await store.save('s', snapshotSaying('new'), { expectedRevision: '0' });
      expect([before, await store.loadRecord('s')]).toEqual([
        { revision: '0', snapshot: snapshotSaying('old') },
        { revision, snapshot: snapshotSaying('new') },
      ]);
    });
  });

  describe('over a file that is not a session record', () => {
    it.each<[string, string, string]>([
      ['text that is not JSON', 'not json', 'the file is not JSON (Unexpected token \'o\', "not json" is not valid JSON)'],
      ['a record without a revision', '{"snapshot":{}}', 'revision must be a non-empty string, got undefined'],
    ])('refuses %s with ERR_SESSION_RECORD', async (_name, text, problem) => {
      const directory = join(scratch, `malformed-${++directories}`);
      await fs.mkdir(directory);
      writeFileSync(join(directory, 's.json'), text);
      expect(await failureOf(() => new FileSessionStore({ directory, fs }).loadRecord('s'))).toEqual({
        code: 'ERR_SESSION_RECORD',
        message: `[ERR_SESSION_RECORD] FileSessionStore: what the store holds for session "s" is not a session record: ${problem}. Give the store a table or key prefix of its own, or delete the record.`,
      });
    });
  });

  describe('delete', () => {
    it('refuses an fs without unlink with ERR_INVALID_OPTIONS', async () => {
      const { unlink: _unlink, ...withoutUnlink } = fs;
      const store = new FileSessionStore({ directory: join(scratch, 'no-unlink'), fs: withoutUnlink });
      expect(await failureOf(() => store.delete('s'))).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        message: '[ERR_INVALID_OPTIONS] FileSessionStore: options.fs must have unlink to delete a session.',
      });
    });
  });
});

describe('Agent', () => {
  describe('created from a store that keeps revisions', () => {
    it('expects, in each save, the revision it loaded or last saved', async () => {
      const store = new MemorySessionStore();
      const expected: unknown[] = [];
      const watched: RevisionedSessionStore = {
        load: (id) => store.load(id),
        loadRecord: (id) => store.loadRecord(id),
        delete: (id, options) => store.delete(id, options),
        save: (id, snapshot, options) => {
          expected.push(options?.expectedRevision);
          const revision = store.save(id, snapshot, options);
          expected.push(revision);
          return revision;
        },
      };
      const agent = await Agent.fromSession({
        model: new ScriptedModel([textTurn('a'), textTurn('b')]),
        session: { store: watched, id: 's' },
      });
      await agent.invoke('one');
      await agent.invoke('two');
      // Each save expects what the one before it returned; the first expects no snapshot (null).
      expect(expected.filter((_value, index) => index % 2 === 0)).toEqual([
        null,
        ...expected.filter((_value, index) => index % 2 === 1).slice(0, -1),
      ]);
      expect(expected.length).toBe(8);
    });

    it('saves unchecked when created with new Agent(), then expects the revision its first save returned', async () => {
      const store = new MemorySessionStore();
      const expected: unknown[] = [];
      const watched = Object.assign(Object.create(store) as MemorySessionStore, {
        save: (id: string, snapshot: never, options?: { expectedRevision?: string | null }) => {
          expected.push(options === undefined ? 'unchecked' : options.expectedRevision === store.loadRecord(id)?.revision);
          return store.save(id, snapshot, options);
        },
      });
      const agent = new Agent({ model: new ScriptedModel([textTurn('a')]), session: { store: watched, id: 's' } });
      await agent.invoke('one');
      expect(expected).toEqual(['unchecked', true]);
    });
  });
});

describe('Agent', () => {
  describe('whose save conflicts', () => {
    it('rejects the run with ERR_SESSION_CONFLICT, makes no put-back save, and leaves the winner in the store', async () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      const store = new MemorySessionStore();
      const agent = await Agent.fromSession({ model: new ScriptedModel([textTurn('late')]), session: { store, id: 's' } });
      const winner = store.save('s', snapshotSaying('winner'));
      const failure = await failureOf(() => agent.invoke('go'));
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect([failure, store.loadRecord('s'), warn.mock.calls]).toEqual([
        { code: 'ERR_SESSION_CONFLICT', message: conflictMessage('MemorySessionStore', 'save', 's', null) },
        { revision: winner, snapshot: snapshotSaying('winner') },
        [],
      ]);
      warn.mockRestore();
    });
  });
});
