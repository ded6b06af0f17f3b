/**
 * A real Redis server for one test file: `redis-server` from the Debian
 * package, started on a free loopback port with a temporary directory and no
 * persistence, and stopped (its directory removed) afterwards.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

/** A running server. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** Stops the server and removes its directory. */
  readonly stop: () => Promise<void>;
}

/** Resolves once the server says it accepts connections; rejects when it exits or stays silent for 15 s. */
function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      reject(new Error(`redis-server did not start within 15 s:\n${output}`));
    }, 15_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${String(code)}:\n${output}`));
    });
  });
}

/**
 * Starts a server.
 *
 * @throws Error saying how to install `redis-server` when it is missing.
 */
export async function startRedis(): Promise<RedisServer> {
  if (spawnSync('redis-server', ['--version']).error !== undefined) {
    throw new Error('redis-server is not installed: apt-get install -y redis-server (.ci/run installs it when missing).');
  }
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), 'staged-middleware-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', directory, '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  await ready(child);
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
