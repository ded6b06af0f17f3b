/**
 * Session stores (MW-137): where an agent keeps its snapshot between
 * processes. The file store takes its file functions from the caller, so the
 * agent kit loads in browsers and edge runtimes with no Node.js module.
 */
import { describeValue } from '../../util/describe-value';
import { invalidSessionStore } from '../errors';
import type { AgentSnapshot, SessionStore } from '../types/snapshot';
import { isObject } from '../../util/is-object';

/**
 * Keeps snapshots in memory, as JSON text, so what `load` returns is a new
 * copy that shares nothing with what was saved. For tests, and for sessions
 * that need not outlive the process.
 *
 * @example
 * ```ts
 * const agent = new Agent({ model, session: { store: new MemorySessionStore(), id: 'chat-1' } });
 * ```
 */
export class MemorySessionStore implements SessionStore {
  private readonly saved = new Map<string, string>();

  /** The snapshot last saved under `sessionId`, parsed anew, or `undefined`. */
  load(sessionId: string): AgentSnapshot | undefined {
    const text = this.saved.get(sessionId);
    return text === undefined ? undefined : (JSON.parse(text) as AgentSnapshot);
  }

  /** Keeps `snapshot` under `sessionId`. */
  save(sessionId: string, snapshot: AgentSnapshot): void {
    this.saved.set(sessionId, JSON.stringify(snapshot));
  }
}

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
 * id>.json`, written to a temporary file first and renamed over the old one,
 * so a crash while saving leaves the previous snapshot whole.
 *
 * @example
 * ```ts
 * import { promises as fs } from 'node:fs';
 * const store = new FileSessionStore({ directory: './sessions', fs });
 * const agent = await Agent.fromSession({ model, tools, session: { store, id: 'chat-1' } });
 * ```
 */
export class FileSessionStore implements SessionStore {
  private readonly directory: string;
  private readonly fs: SessionFiles;
  private writes = 0;

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
    let text: string;
    try {
      text = await this.fs.readFile(this.fileOf(sessionId), 'utf8');
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === 'ENOENT') return undefined;
      throw error;
    }
    return JSON.parse(text) as AgentSnapshot;
  }

  /** Writes the snapshot to a temporary file, then renames it over the session's file. */
  async save(sessionId: string, snapshot: AgentSnapshot): Promise<void> {
    const file = this.fileOf(sessionId);
    const temporary = `${file}.${++this.writes}.${Math.random().toString(36).slice(2)}.tmp`;
    await this.fs.mkdir(this.directory, { recursive: true });
    await this.fs.writeFile(temporary, `${JSON.stringify(snapshot)}\n`, 'utf8');
    await this.fs.rename(temporary, file);
  }

  /** The session's file: its id encoded, so no id names a file outside the directory. */
  private fileOf(sessionId: string): string {
    return `${this.directory}/${encodeURIComponent(sessionId)}.json`;
  }
}
