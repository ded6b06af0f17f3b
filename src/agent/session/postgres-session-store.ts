/**
 * A session store on PostgreSQL (MW-256) that several workers share: one
 * table, created when missing, one row per session, each save a single
 * statement that checks the revision in its `WHERE` clause, so PostgreSQL's
 * row lock decides between two workers saving at once. It takes the caller's
 * client or pool (`pg`'s fit), so the agent kit loads no database driver.
 *
 * @packageDocumentation
 */
import { describeValue } from '../../util/describe-value';
import { isObject } from '../../util/is-object';
import { invalidSessionStore, malformedSessionRecord, sessionConflict } from '../errors';
import type { AgentSnapshot, RevisionedSessionStore, SessionRecord, SessionSaveOptions } from '../types/snapshot';
import { decodeSessionRecord, expectedRevisionOf, newRevision } from './session-revisions';

/** What {@link PostgresSessionStore} sends its statements to: a `Pool` or `Client` of `pg` fits. */
export interface PostgresQueryable {
  /** Runs one statement with positional parameters (`$1`, `$2`, ...). */
  query(text: string, values: unknown[]): Promise<{ readonly rows: readonly unknown[]; readonly rowCount: number | null }>;
}

/** Options of {@link PostgresSessionStore}. */
export interface PostgresSessionStoreOptions {
  /** The pool (or client) the store queries: `new pg.Pool({ connectionString })`. */
  readonly pool: PostgresQueryable;
  /** The table, created when missing: a name, or `schema.name` (letters, digits, `_`). Default `staged_middleware_sessions`. */
  readonly table?: string;
}

const STORE = 'PostgresSessionStore';
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Keeps each session in one row of a PostgreSQL table (`session_id` text
 * primary key, `revision` text, `snapshot` json, `updated_at`), created with
 * `CREATE TABLE IF NOT EXISTS` before the first statement of the store.
 * Rows are read as untrusted data (MW-256).
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * const store = new PostgresSessionStore({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) });
 * const agent = await Agent.fromSession({ model, tools, session: { store, id: 'chat-1' } });
 * ```
 */
export class PostgresSessionStore implements RevisionedSessionStore {
  private readonly pool: PostgresQueryable;
  private readonly table: string;
  private created: Promise<void> | undefined;

  /**
   * Creates a store over `options.pool`; the table is created by the first call that needs it.
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` without a `pool` that has `query`, or with a `table` that is
   *   not a name or `schema.name`.
   */
  constructor(options: PostgresSessionStoreOptions) {
    const given = options as Partial<PostgresSessionStoreOptions> | null | undefined;
    const pool = given?.pool;
    const table = given?.table ?? 'staged_middleware_sessions';
    const where = 'new PostgresSessionStore(options)';
    if (!isObject(pool) || typeof (pool as { query?: unknown }).query !== 'function') {
      throw invalidSessionStore(`options.pool must have query(text, values) (a pg Pool or Client), got ${describeValue(pool)}`, where);
    }
    const parts = typeof table === 'string' ? table.split('.') : [];
    if (parts.length < 1 || parts.length > 2 || !parts.every((part) => IDENTIFIER.test(part))) {
      throw invalidSessionStore(`options.table must be a name or schema.name of letters, digits and _, got ${describeValue(table)}`, where);
    }
    this.pool = pool;
    this.table = parts.map((part) => `"${part}"`).join('.');
  }

  /** The snapshot saved under `sessionId`, or `undefined`. */
  async load(sessionId: string): Promise<AgentSnapshot | undefined> {
    return (await this.loadRecord(sessionId))?.snapshot;
  }

  /**
   * The snapshot saved under `sessionId` with its revision, or `undefined`.
   *
   * @throws MiddlewareError `ERR_SESSION_RECORD` when the row is not a revision with a snapshot.
   */
  async loadRecord(sessionId: string): Promise<SessionRecord | undefined> {
    const { rows } = await this.query(`SELECT revision, snapshot FROM ${this.table} WHERE session_id = $1`, [sessionId]);
    if (!Array.isArray(rows)) throw malformedSessionRecord(STORE, sessionId, `the query answered rows ${describeValue(rows)}`);
    return rows.length === 0 ? undefined : decodeSessionRecord(rows[0], STORE, sessionId);
  }

  /**
   * Writes `snapshot` as a new revision in one statement, and resolves to the revision.
   *
   * @throws MiddlewareError `ERR_SESSION_CONFLICT` when `options.expectedRevision` is not what the row holds.
   */
  async save(sessionId: string, snapshot: AgentSnapshot, options?: SessionSaveOptions): Promise<string> {
    const expected = expectedRevisionOf(options, STORE);
    const revision = newRevision();
    const text = JSON.stringify(snapshot);
    const columns = `${this.table} (session_id, revision, snapshot, updated_at) VALUES ($1, $2, $3::json, now())`;
    const result =
      expected === undefined
        ? await this.query(
            `INSERT INTO ${columns} ON CONFLICT (session_id) DO UPDATE SET revision = EXCLUDED.revision, snapshot = EXCLUDED.snapshot, updated_at = now()`,
            [sessionId, revision, text],
          )
        : expected === null
          ? await this.query(`INSERT INTO ${columns} ON CONFLICT (session_id) DO NOTHING`, [sessionId, revision, text])
          : await this.query(
              `UPDATE ${this.table} SET revision = $2, snapshot = $3::json, updated_at = now() WHERE session_id = $1 AND revision = $4`,
              [sessionId, revision, text, expected],
            );
    if (result.rowCount !== 1) throw sessionConflict(STORE, 'save', sessionId, expected as string | null);
    return revision;
  }

  /**
   * Deletes the session's row; resolves to whether there was one.
   *
   * @throws MiddlewareError `ERR_SESSION_CONFLICT` when `options.expectedRevision` is not what the row holds.
   */
  async delete(sessionId: string, options?: SessionSaveOptions): Promise<boolean> {
    const expected = expectedRevisionOf(options, STORE);
    if (expected === null) {
      const { rows } = await this.query(`SELECT 1 FROM ${this.table} WHERE session_id = $1`, [sessionId]);
      if (rows.length > 0) throw sessionConflict(STORE, 'delete', sessionId, null);
      return false;
    }
    const result =
      expected === undefined
        ? await this.query(`DELETE FROM ${this.table} WHERE session_id = $1`, [sessionId])
        : await this.query(`DELETE FROM ${this.table} WHERE session_id = $1 AND revision = $2`, [sessionId, expected]);
    if (expected !== undefined && result.rowCount !== 1) throw sessionConflict(STORE, 'delete', sessionId, expected);
    return result.rowCount === 1;
  }

  /** Runs a statement once the table exists. */
  private async query(text: string, values: unknown[]): Promise<{ readonly rows: readonly unknown[]; readonly rowCount: number | null }> {
    await this.ensureTable();
    return this.pool.query(text, values);
  }

  /** Creates the table once per store; a failed attempt is tried again by the next call. */
  private ensureTable(): Promise<void> {
    this.created ??= this.pool
      .query(
        `CREATE TABLE IF NOT EXISTS ${this.table} (session_id text PRIMARY KEY, revision text NOT NULL, snapshot json NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())`,
        [],
      )
      .then(
        () => undefined,
        (error: unknown) => {
          // Two workers creating the table at once: PostgreSQL lets one of them fail on its catalog; the table is there.
          if (isObject(error) && ['23505', '42P07'].includes(String((error as { code?: unknown }).code))) return;
          this.created = undefined;
          throw error;
        },
      );
    return this.created;
  }
}
