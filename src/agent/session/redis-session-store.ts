/**
 * A session store on Redis (MW-256) that several workers share: one hash per
 * session (`revision`, `snapshot`), each save and delete a Lua script that
 * checks the revision and writes in one step, which Redis runs without
 * interleaving another command. It takes the caller's client (node-redis's,
 * as `@keyv/redis` creates it, fits), so the agent kit loads no Redis client.
 *
 * @packageDocumentation
 */
import { describeValue } from '../../util/describe-value';
import { isObject } from '../../util/is-object';
import { invalidSessionStore, malformedSessionRecord, sessionConflict } from '../errors';
import type { AgentSnapshot, RevisionedSessionStore, SessionRecord, SessionSaveOptions } from '../types/snapshot';
import { decodeSessionRecord, expectedRevisionOf, newRevision } from './session-revisions';

/** What {@link RedisSessionStore} runs its scripts on: a node-redis client (`createClient()` of `redis` or `@keyv/redis`) fits. */
export interface RedisScripting {
  /** Runs a Lua script with its keys and arguments (`EVAL`). */
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Options of {@link RedisSessionStore}. */
export interface RedisSessionStoreOptions {
  /** The connected client. */
  readonly client: RedisScripting;
  /** What every session's key starts with (default `staged-middleware:session:`); the session id follows. */
  readonly prefix?: string;
}

const STORE = 'RedisSessionStore';

// ARGV[1] says what the caller expects: 'any' (no check), 'absent' (no hash) or 'revision' (ARGV[2]).
const CHECK = `local current = redis.call('HGET', KEYS[1], 'revision')
if (ARGV[1] == 'revision' and current ~= ARGV[2]) or (ARGV[1] == 'absent' and current) then return -1 end`;
const SAVE = /*#__PURE__*/ [CHECK, "redis.call('HSET', KEYS[1], 'revision', ARGV[3], 'snapshot', ARGV[4])", 'return 1'].join('\n');
const DELETE = /*#__PURE__*/ [CHECK, "return redis.call('DEL', KEYS[1])"].join('\n');
const LOAD = `return redis.call('HMGET', KEYS[1], 'revision', 'snapshot')`;

/** The script arguments that say what a caller expects. */
function expectation(expected: string | null | undefined): string[] {
  if (expected === undefined) return ['any', ''];
  return expected === null ? ['absent', ''] : ['revision', expected];
}

/**
 * Keeps each session in a Redis hash under `<prefix><session id>`. What a
 * load reads back is untrusted (MW-256).
 *
 * @example
 * ```ts
 * import { createClient } from '@keyv/redis';
 * const client = await createClient({ url: 'redis://127.0.0.1:6379' }).connect();
 * const store = new RedisSessionStore({ client });
 * const agent = await Agent.fromSession({ model, tools, session: { store, id: 'chat-1' } });
 * ```
 */
export class RedisSessionStore implements RevisionedSessionStore {
  private readonly client: RedisScripting;
  private readonly prefix: string;

  /**
   * Creates a store over `options.client`.
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` without a `client` that has `eval`, or with a `prefix` that is
   *   not a string.
   */
  constructor(options: RedisSessionStoreOptions) {
    const given = options as Partial<RedisSessionStoreOptions> | null | undefined;
    const client = given?.client;
    const prefix = given?.prefix ?? 'staged-middleware:session:';
    const where = 'new RedisSessionStore(options)';
    if (!isObject(client) || typeof (client as { eval?: unknown }).eval !== 'function') {
      throw invalidSessionStore(
        `options.client must have eval(script, { keys, arguments }) (a node-redis client), got ${describeValue(client)}`,
        where,
      );
    }
    if (typeof prefix !== 'string') throw invalidSessionStore(`options.prefix must be a string, got ${describeValue(prefix)}`, where);
    this.client = client;
    this.prefix = prefix;
  }

  /** The snapshot saved under `sessionId`, or `undefined`. */
  async load(sessionId: string): Promise<AgentSnapshot | undefined> {
    return (await this.loadRecord(sessionId))?.snapshot;
  }

  /**
   * The snapshot saved under `sessionId` with its revision, or `undefined`.
   *
   * @throws MiddlewareError `ERR_SESSION_RECORD` when the key holds no such hash.
   */
  async loadRecord(sessionId: string): Promise<SessionRecord | undefined> {
    const reply = await this.client.eval(LOAD, { keys: [this.prefix + sessionId], arguments: [] });
    if (!Array.isArray(reply) || reply.length !== 2) {
      throw malformedSessionRecord(STORE, sessionId, `HMGET answered ${describeValue(reply)}`);
    }
    const [revision, snapshot] = reply as unknown[];
    if ((revision === null || revision === undefined) && (snapshot === null || snapshot === undefined)) return undefined;
    return decodeSessionRecord({ revision, snapshot }, STORE, sessionId);
  }

  /**
   * Writes `snapshot` as a new revision, checked and written by one script, and resolves to the revision.
   *
   * @throws MiddlewareError `ERR_SESSION_CONFLICT` when `options.expectedRevision` is not what the hash holds.
   */
  async save(sessionId: string, snapshot: AgentSnapshot, options?: SessionSaveOptions): Promise<string> {
    const expected = expectedRevisionOf(options, STORE);
    const revision = newRevision();
    const reply = await this.client.eval(SAVE, {
      keys: [this.prefix + sessionId],
      arguments: [...expectation(expected), revision, JSON.stringify(snapshot)],
    });
    if (reply !== 1) throw sessionConflict(STORE, 'save', sessionId, expected as string | null);
    return revision;
  }

  /**
   * Deletes the session's hash; resolves to whether there was one.
   *
   * @throws MiddlewareError `ERR_SESSION_CONFLICT` when `options.expectedRevision` is not what the hash holds.
   */
  async delete(sessionId: string, options?: SessionSaveOptions): Promise<boolean> {
    const expected = expectedRevisionOf(options, STORE);
    const reply = await this.client.eval(DELETE, { keys: [this.prefix + sessionId], arguments: expectation(expected) });
    if (reply === -1) throw sessionConflict(STORE, 'delete', sessionId, expected as string | null);
    return reply === 1;
  }
}
