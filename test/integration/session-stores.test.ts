/**
 * `PostgresSessionStore` and `RedisSessionStore` on a real PostgreSQL and a
 * real Redis server (MW-253 – MW-256): the contract of a store that keeps
 * revisions, each worker with its own pool or client (its own connections),
 * so two saves over one revision race in the server itself.
 */
import { createClient } from '@keyv/redis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSessionStore, RedisSessionStore, type RevisionedSessionStore } from '../../src/agent/index';
import { describeRevisionedStore, failureOf, snapshotSaying } from '../agent/revisioned-store-contract';
import { startPostgres, type PostgresServer } from './postgres-server';
import { startRedis, type RedisServer } from './redis-server';

let postgres: PostgresServer;
let redis: RedisServer;
let databaseUrl: string;
const pools: pg.Pool[] = [];
const clients: { close: () => Promise<unknown> }[] = [];

beforeAll(async () => {
  [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  databaseUrl = await postgres.createDatabase('sessions');
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await Promise.all(clients.map((client) => client.close()));
  // Not started when beforeAll failed.
  await Promise.all([(postgres as PostgresServer | undefined)?.stop(), (redis as RedisServer | undefined)?.stop()]);
});

/** A pool of its own, as each worker has. */
function newPool(): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // The server's shutdown at the end ends the connections a pool still holds (57P01); any other error fails the file.
  pool.on('error', (error: Error & { code?: string }) => {
    if (error.code !== '57P01') throw error;
  });
  pools.push(pool);
  return pool;
}

/** A connected node-redis client of its own. */
async function newClient() {
  const client = createClient({ url: redis.url });
  await client.connect();
  clients.push(client);
  return client;
}

const tableOf = new WeakMap<RevisionedSessionStore, string>();
let tables = 0;
describeRevisionedStore('PostgresSessionStore', (sameAs) => {
  const table = (sameAs && tableOf.get(sameAs)) ?? `sessions_${++tables}`;
  const store = new PostgresSessionStore({ pool: newPool(), table });
  tableOf.set(store, table);
  return store;
});

const prefixOf = new WeakMap<RevisionedSessionStore, string>();
let prefixes = 0;
describeRevisionedStore('RedisSessionStore', async (sameAs) => {
  const prefix = (sameAs && prefixOf.get(sameAs)) ?? `test:${++prefixes}:`;
  const store = new RedisSessionStore({ client: await newClient(), prefix });
  prefixOf.set(store, prefix);
  return store;
});

describe('PostgresSessionStore', () => {
  describe('on a table another program wrote', () => {
    it('refuses a row whose snapshot is not an object with ERR_SESSION_RECORD', async () => {
      const pool = newPool();
      const store = new PostgresSessionStore({ pool, table: 'public.foreign_rows' });
      await store.save('s', snapshotSaying('one'));
      await pool.query(`UPDATE public.foreign_rows SET snapshot = '[1, 2]'::json WHERE session_id = 's'`);
      expect(await failureOf(() => store.load('s'))).toEqual({
        code: 'ERR_SESSION_RECORD',
        message:
          '[ERR_SESSION_RECORD] PostgresSessionStore: what the store holds for session "s" is not a session record: snapshot must be an object, got an array of length 2. Give the store a table or key prefix of its own, or delete the record.',
      });
    });
  });

  describe('created by several workers at once', () => {
    it('creates its table once, every worker saving', async () => {
      const stores = [0, 1, 2].map(() => new PostgresSessionStore({ pool: newPool(), table: 'created_at_once' }));
      const saved = await Promise.allSettled(stores.map((store, index) => store.save(`s${String(index)}`, snapshotSaying('hi'))));
      expect(saved.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    });
  });

  describe('constructor', () => {
    it('refuses a table name that is not an identifier with ERR_INVALID_OPTIONS', async () => {
      expect(await failureOf(() => new PostgresSessionStore({ pool: newPool(), table: 'x; DROP TABLE y' }))).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        message:
          '[ERR_INVALID_OPTIONS] new PostgresSessionStore(options): options.table must be a name or schema.name of letters, digits and _, got the string "x; DROP TABLE y".',
      });
    });
  });
});

describe('RedisSessionStore', () => {
  describe('on a key another program wrote', () => {
    it('refuses a hash without a revision with ERR_SESSION_RECORD', async () => {
      const client = await newClient();
      await client.hSet('foreign:s', 'snapshot', '{}');
      expect(await failureOf(() => new RedisSessionStore({ client, prefix: 'foreign:' }).load('s'))).toEqual({
        code: 'ERR_SESSION_RECORD',
        message:
          '[ERR_SESSION_RECORD] RedisSessionStore: what the store holds for session "s" is not a session record: revision must be a non-empty string, got null. Give the store a table or key prefix of its own, or delete the record.',
      });
    });
  });
});
