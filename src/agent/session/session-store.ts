/**
 * Session stores (MW-137, MW-253, MW-256): where an agent keeps its snapshot between
 * processes. The file store takes its file functions from the caller, so the
 * agent kit loads in browsers and edge runtimes with no Node.js module.
 */
import { describeValue } from '../../util/describe-value';
import { invalidSessionStore, malformedSessionRecord, sessionConflict } from '../errors';
import type { AgentSnapshot, RevisionedSessionStore, SessionRecord, SessionSaveOptions } from '../types/snapshot';
import { isObject } from '../../util/is-object';
import { decodeSessionRecord, expectedRevisionOf, newRevision, revisionMatches } from './session-revisions';

/**
 * Keeps snapshots in memory, as JSON text, so what `load` returns is a new
 * copy that shares nothing with what was saved; every save writes a new
 * revision (MW-253). For tests, and for sessions that need not outlive the
 * process.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, session: { store: new MemorySessionStore(), id: 'chat-1' } });
 * ```
 */
export class MemorySessionStore implements RevisionedSessionStore {
  private readonly saved = new Map<string, { readonly revision: string; readonly text: string }>();

  /** The snapshot last saved under `sessionId`, parsed anew, or `undefined`. */
  load(sessionId: string): AgentSnapshot | undefined {
    return this.loadRecord(sessionId)?.snapshot;
  }

  /** The snapshot last saved under `sessionId`, parsed anew, with its revision, or `undefined`. */
  loadRecord(sessionId: string): SessionRecord | undefined {
    const entry = this.saved.get(sessionId);
    return entry === undefined ? undefined : { revision: entry.revision, snapshot: JSON.parse(entry.text) as AgentSnapshot };
  }

  /**
   * Keeps `snapshot` under `sessionId` as a new revision, and returns it.
   *
   * @throws MiddlewareError `ERR_SESSION_CONFLICT` when `options.expectedRevision` is not what the store holds.
   */
  save(sessionId: string, snapshot: AgentSnapshot, options?: SessionSaveOptions): string {
    const expected = expectedRevisionOf(options, MEMORY_STORE);
    if (!revisionMatches(expected, this.saved.get(sessionId)?.revision)) {
      throw sessionConflict(MEMORY_STORE, 'save', sessionId, expected as string | null);
    }
    const revision = newRevision();
    this.saved.set(sessionId, { revision, text: JSON.stringify(snapshot) });
    return revision;
  }

  /**
   * Removes the session; returns whether it was there.
   *
   * @throws MiddlewareError `ERR_SESSION_CONFLICT` when `options.expectedRevision` is not what the store holds.
   */
  delete(sessionId: string, options?: SessionSaveOptions): boolean {
    const expected = expectedRevisionOf(options, MEMORY_STORE);
    if (!revisionMatches(expected, this.saved.get(sessionId)?.revision)) {
      throw sessionConflict(MEMORY_STORE, 'delete', sessionId, expected as string | null);
    }
    return this.saved.delete(sessionId);
  }
}

const MEMORY_STORE = 'MemorySessionStore';
const FILE_STORE = 'FileSessionStore';

/** The file functions {@link FileSessionStore} uses: those of `node:fs/promises` fit. */
export interface SessionFiles {
  /** Reads a whole file as text; rejects with an error whose `code` is `'ENOENT'` when there is none. */
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  /** Writes a whole file. */
  writeFile(path: string, data: string, encoding: 'utf8'): Promise<void>;
  /** Moves a file, replacing the target (atomically, on one file system). */
  rename(from: string, to: string): Promise<void>;
  /** Creates a directory and its parents. */
  mkdir(path: string, options: { readonly recursive: true }): Promise<unknown>;
  /** Removes a file; needed by `delete` only. */
  unlink?(path: string): Promise<void>;
}

/** Options of {@link FileSessionStore}. */
export interface FileSessionStoreOptions {
  /** The directory that holds one `<session id>.json` file per session (created when missing). */
  readonly directory: string;
  /** The file functions: `import { promises as fs } from 'node:fs'` and pass `fs`. */
  readonly fs: SessionFiles;
}

/**
 * Keeps each session's snapshot in a JSON file, `<directory>/<encoded session
 * id>.json` (`{ "revision": ..., "snapshot": ... }`), written to a temporary
 * file first and renamed over the old one, so a crash while saving leaves the
 * previous snapshot whole. Revisions are checked (MW-256) between the saves
 * and deletes of one store object, which it runs one at a time per session:
 * share one store object among the agents of a process; processes that share
 * a directory are not checked against each other (use `PostgresSessionStore`
 * or `RedisSessionStore` for several workers).
 *
 * @example
 * ```ts
 * import { promises as fs } from 'node:fs';
 * const store = new FileSessionStore({ directory: './sessions', fs });
 * const agent = await Agent.fromSession({ model, tools, session: { store, id: 'chat-1' } });
 * ```
 */
export class FileSessionStore implements RevisionedSessionStore {
  private readonly directory: string;
  private readonly fs: SessionFiles;
  private writes = 0;
  /** The last queued operation of each session with one going, so one runs at a time per file. */
  private readonly queues = new Map<string, Promise<unknown>>();

  /**
   * Creates a store over `directory`.
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` without a non-empty `directory` or with `fs` missing a function.
   */
  constructor(options: FileSessionStoreOptions) {
    const given = options as Partial<FileSessionStoreOptions> | null | undefined;
    const directory = given?.directory;
    const fs = given?.fs;
    if (typeof directory !== 'string' || directory.length === 0)
      throw invalidSessionStore(`options.directory must be a non-empty string, got ${describeValue(directory)}`);
    if (!isObject(fs) || (['readFile', 'writeFile', 'rename', 'mkdir'] as const).some((name) => typeof fs[name] !== 'function')) {
      throw invalidSessionStore(
        `options.fs must have readFile, writeFile, rename and mkdir (pass the promises API of node:fs), got ${describeValue(fs)}`,
      );
    }
    this.directory = directory.replace(/[\\/]+$/, '');
    this.fs = fs;
  }

  /** The snapshot in the session's file, or `undefined` when there is no file. */
  async load(sessionId: string): Promise<AgentSnapshot | undefined> {
    return (await this.loadRecord(sessionId))?.snapshot;
  }

  /**
   * The snapshot in the session's file with its revision, or `undefined` when there is no file. A file holding
   * a bare snapshot (as this store wrote before it kept revisions) has the revision `"0"`.
   *
   * @throws MiddlewareError `ERR_SESSION_RECORD` when the file is not such a record.
   */
  async loadRecord(sessionId: string): Promise<SessionRecord | undefined> {
    let text: string;
    try {
      text = await this.fs.readFile(this.fileOf(sessionId), 'utf8');
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === 'ENOENT') return undefined;
      throw error;
    }
    let stored: unknown;
    try {
      stored = JSON.parse(text) as unknown;
    } catch (error) {
      throw malformedSessionRecord(FILE_STORE, sessionId, `the file is not JSON (${(error as Error).message})`);
    }
    const bare = isObject(stored) && !Object.hasOwn(stored, 'snapshot') && Object.hasOwn(stored, 'messages');
    return decodeSessionRecord(bare ? { revision: '0', snapshot: stored } : stored, FILE_STORE, sessionId);
  }

  /**
   * Writes the snapshot as a new revision to a temporary file, then renames it over the session's file.
   *
   * @throws MiddlewareError `ERR_SESSION_CONFLICT` when `options.expectedRevision` is not what the file holds.
   */
  save(sessionId: string, snapshot: AgentSnapshot, options?: SessionSaveOptions): Promise<string> {
    const expected = expectedRevisionOf(options, FILE_STORE);
    return this.queued(sessionId, async () => {
      if (expected !== undefined) await this.check(sessionId, expected, 'save');
      const file = this.fileOf(sessionId);
      const revision = newRevision();
      const temporary = `${file}.${++this.writes}.${Math.random().toString(36).slice(2)}.tmp`;
      await this.fs.mkdir(this.directory, { recursive: true });
      await this.fs.writeFile(temporary, `${JSON.stringify({ revision, snapshot })}\n`, 'utf8');
      await this.fs.rename(temporary, file);
      return revision;
    });
  }

  /**
   * Removes the session's file; resolves to whether there was one.
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `fs` has no `unlink`; `ERR_SESSION_CONFLICT` when
   *   `options.expectedRevision` is not what the file holds.
   */
  delete(sessionId: string, options?: SessionSaveOptions): Promise<boolean> {
    const expected = expectedRevisionOf(options, FILE_STORE);
    const unlink = typeof this.fs.unlink === 'function' ? this.fs.unlink.bind(this.fs) : undefined;
    if (unlink === undefined) throw invalidSessionStore('options.fs must have unlink to delete a session', FILE_STORE);
    return this.queued(sessionId, async () => {
      if (expected !== undefined) await this.check(sessionId, expected, 'delete');
      try {
        await unlink(this.fileOf(sessionId));
        return true;
      } catch (error) {
        if ((error as { code?: unknown } | null)?.code === 'ENOENT') return false;
        throw error;
      }
    });
  }

  /** Throws `ERR_SESSION_CONFLICT` unless the session's file holds `expected`. */
  private async check(sessionId: string, expected: string | null, operation: 'save' | 'delete'): Promise<void> {
    const current = await this.loadRecord(sessionId);
    if (!revisionMatches(expected, current?.revision)) throw sessionConflict(FILE_STORE, operation, sessionId, expected);
  }

  /** Runs `operation` after the session's operations queued before it, whatever their outcome. */
  private queued<T>(sessionId: string, operation: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(sessionId) ?? Promise.resolve();
    const running = previous.then(operation, operation);
    const settled = running.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(sessionId, settled);
    void settled.then(() => {
      if (this.queues.get(sessionId) === settled) this.queues.delete(sessionId);
    });
    return running;
  }

  /** The session's file: its id encoded, so no id names a file outside the directory. */
  private fileOf(sessionId: string): string {
    return `${this.directory}/${encodeURIComponent(sessionId)}.json`;
  }
}
