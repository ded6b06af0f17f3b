/**
 * What every store that keeps revisions does (MW-253, MW-255, MW-256), as
 * tests any such store runs: the memory and file stores in the unit tests,
 * the PostgreSQL and Redis stores in the integration tier.
 */
import { describe, expect, it, vi } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { Agent, type AgentSnapshot, type RevisionedSessionStore } from '../../src/agent/index';
import { ScriptedModel, textTurn } from '../../src/testing/index';
import { user, ZERO } from './fixtures';

/** A snapshot whose history is one user message saying `text`. */
export const snapshotSaying = (text: string): AgentSnapshot => ({
  version: 1,
  messages: [user(text)],
  modelState: {},
  usage: ZERO,
  halted: null,
});

/** What a rejection or throw carried: its code and message for a MiddlewareError, else the value. */
export async function failureOf(action: () => unknown): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return MiddlewareError.isInstance(error) ? { code: error.code, message: error.message } : error;
  }
  return 'no failure';
}

/** The message of `ERR_SESSION_CONFLICT` as MW-255 words it. */
export function conflictMessage(store: string, operation: 'save' | 'delete', id: string, expected: string | null): string {
  const wanted = expected === null ? 'no snapshot' : `revision "${expected}"`;
  return `[ERR_SESSION_CONFLICT] ${store}: the ${operation} of session "${id}" expected ${wanted}, but another save or delete of the session came first; nothing was written. Load the session again (Agent.fromSession) and go on from what it holds, or leave the session to the worker that saved it.`;
}

/**
 * Registers the contract's tests for the store `name` (as its messages name it); `open` gives a store over a
 * place nothing else uses (a fresh directory, table or prefix), and a second store object over the same place
 * when called with the first, as a second worker has.
 */
export function describeRevisionedStore(
  name: string,
  open: (sameAs?: RevisionedSessionStore) => RevisionedSessionStore | Promise<RevisionedSessionStore>,
): void {
  describe(`${name} keeping revisions`, () => {
    describe('save', () => {
      it('returns a new revision that loadRecord reads back with the snapshot, and load reads the snapshot alone', async () => {
        const store = await open();
        const first = await store.save('s', snapshotSaying('one'));
        const second = await store.save('s', snapshotSaying('two'), { expectedRevision: first });
        expect([
          typeof first,
          first === second,
          await store.loadRecord('s'),
          await store.load('s'),
          await store.loadRecord('other'),
          await store.load('other'),
        ]).toEqual(['string', false, { revision: second, snapshot: snapshotSaying('two') }, snapshotSaying('two'), undefined, undefined]);
      });

      it('refuses a save expecting a revision the store no longer holds, with ERR_SESSION_CONFLICT, writing nothing', async () => {
        const store = await open();
        const first = await store.save('s', snapshotSaying('one'));
        const second = await store.save('s', snapshotSaying('two'), { expectedRevision: first });
        const failure = await failureOf(() => store.save('s', snapshotSaying('stale'), { expectedRevision: first }));
        expect([failure, await store.loadRecord('s')]).toEqual([
          { code: 'ERR_SESSION_CONFLICT', message: conflictMessage(name, 'save', 's', first) },
          { revision: second, snapshot: snapshotSaying('two') },
        ]);
      });

      it('creates a session expecting null only while the store holds none', async () => {
        const store = await open();
        const created = await store.save('s', snapshotSaying('one'), { expectedRevision: null });
        const failure = await failureOf(() => store.save('s', snapshotSaying('again'), { expectedRevision: null }));
        expect([failure, await store.loadRecord('s')]).toEqual([
          { code: 'ERR_SESSION_CONFLICT', message: conflictMessage(name, 'save', 's', null) },
          { revision: created, snapshot: snapshotSaying('one') },
        ]);
      });

      it('lets exactly one of two workers saving over the same revision win', async () => {
        const store = await open();
        const other = await open(store);
        const start = await store.save('s', snapshotSaying('start'));
        const outcomes = await Promise.allSettled([
          (async () => store.save('s', snapshotSaying('first worker'), { expectedRevision: start }))(),
          (async () => other.save('s', snapshotSaying('second worker'), { expectedRevision: start }))(),
        ]);
        const won = outcomes.findIndex((outcome) => outcome.status === 'fulfilled');
        const lost = outcomes[1 - won];
        const record = await store.loadRecord('s');
        expect([
          outcomes.map((outcome) => outcome.status).sort(),
          lost?.status === 'rejected' ? (lost.reason as MiddlewareError).code : lost,
          record?.snapshot,
          record?.revision === (outcomes[won] as PromiseFulfilledResult<string>).value,
        ]).toEqual([['fulfilled', 'rejected'], 'ERR_SESSION_CONFLICT', snapshotSaying(won === 0 ? 'first worker' : 'second worker'), true]);
      });

      it('refuses an expected revision that is neither a string nor null, with ERR_INVALID_OPTIONS', async () => {
        const store = await open();
        const failure = (await failureOf(() => store.save('s', snapshotSaying('one'), { expectedRevision: 42 as never }))) as {
          code: string;
        };
        expect([failure.code, await store.loadRecord('s')]).toEqual(['ERR_INVALID_OPTIONS', undefined]);
      });
    });

    describe('delete', () => {
      it('removes the session and says whether there was one', async () => {
        const store = await open();
        await store.save('s', snapshotSaying('one'));
        expect([await store.delete('s'), await store.loadRecord('s'), await store.delete('s')]).toEqual([true, undefined, false]);
      });

      it('refuses a delete expecting a revision the store no longer holds, keeping the session', async () => {
        const store = await open();
        const first = await store.save('s', snapshotSaying('one'));
        const second = await store.save('s', snapshotSaying('two'), { expectedRevision: first });
        const failure = await failureOf(() => store.delete('s', { expectedRevision: first }));
        expect([failure, await store.delete('s', { expectedRevision: second }), await store.loadRecord('s')]).toEqual([
          { code: 'ERR_SESSION_CONFLICT', message: conflictMessage(name, 'delete', 's', first) },
          true,
          undefined,
        ]);
      });

      it('leaves a worker holding a revision from before the delete unable to save over a session saved anew', async () => {
        const store = await open();
        const old = await store.save('s', snapshotSaying('old'));
        await store.delete('s');
        const renewed = await store.save('s', snapshotSaying('new'), { expectedRevision: null });
        const failure = await failureOf(() => store.save('s', snapshotSaying('stale'), { expectedRevision: old }));
        expect([failure, await store.loadRecord('s')]).toEqual([
          { code: 'ERR_SESSION_CONFLICT', message: conflictMessage(name, 'save', 's', old) },
          { revision: renewed, snapshot: snapshotSaying('new') },
        ]);
      });
    });

    describe('shared by two agents resuming one session', () => {
      it("rejects the later agent's run with ERR_SESSION_CONFLICT and keeps the earlier agent's save", async () => {
        // A put-back save after the lost run would warn: the agent makes none (MW-254).
        const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
        const store = await open();
        const other = await open(store);
        await store.save('chat', snapshotSaying('hello'));
        const first = await Agent.fromSession({ model: new ScriptedModel([textTurn('from the first')]), session: { store, id: 'chat' } });
        const second = await Agent.fromSession({
          model: new ScriptedModel([textTurn('from the second')]),
          session: { store: other, id: 'chat' },
        });
        await first.invoke('go on');
        const failure = (await failureOf(() => second.invoke('go on'))) as { code: string };
        // A put-back save, were there one, would settle now.
        await new Promise((resolve) => setTimeout(resolve, 10));
        const saved = await store.load('chat');
        expect([failure.code, second.messages, saved?.messages.map((message) => message.content), warn.mock.calls]).toEqual([
          'ERR_SESSION_CONFLICT',
          [user('hello')],
          [[{ type: 'text', text: 'hello' }], [{ type: 'text', text: 'go on' }], [{ type: 'text', text: 'from the first' }]],
          [],
        ]);
        warn.mockRestore();
      });
    });
  });
}
