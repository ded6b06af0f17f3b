/**
 * A real Restate server for one test file: the `restate-server` binary that
 * the npm package `@restatedev/restate-server` ships (a dev dependency),
 * started on free loopback ports (ingress, admin, node-to-node) with its data
 * in a temporary directory, and stopped (its directory removed) afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from './free-port';

/** A running server. */
export interface RestateServer {
  /** The ingress's base URL: `http://127.0.0.1:<port>`. */
  readonly ingress: string;
  /** The admin API's base URL. */
  readonly admin: string;
  /** Registers the deployment (the SDK endpoint) at `url` through the admin API; the endpoint must be up. */
  readonly register: (url: string) => Promise<void>;
  /** Stops the server and removes its directory. */
  readonly stop: () => Promise<void>;
}

/** The binary inside the platform package the server's package depends on. */
function binary(): string {
  const require = createRequire(import.meta.url);
  const platform = `@restatedev/restate-server-${process.platform}-${process.arch}`;
  return join(dirname(require.resolve(`${platform}/package.json`)), 'bin', 'restate-server');
}

/** Resolves once `url` answers 200; rejects when the child exits or 30 s pass. */
async function ready(child: ChildProcess, url: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`restate-server exited with ${String(child.exitCode)}:\n${output()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`restate-server did not answer ${url} within 30 s:\n${output()}`);
}

/** Starts a server; retries of a failed attempt start after 100 ms and back off to 1 s, so a killed endpoint is retried promptly. */
export async function startRestate(): Promise<RestateServer> {
  const [ingressPort, adminPort, nodePort] = [await freePort(), await freePort(), await freePort()];
  const directory = mkdtempSync(join(tmpdir(), 'staged-middleware-restate-'));
  const config = join(directory, 'restate.toml');
  writeFileSync(
    config,
    [
      `base-dir = ${JSON.stringify(join(directory, 'data'))}`,
      'default-num-partitions = 1',
      'disable-telemetry = true',
      `bind-address = "127.0.0.1:${String(nodePort)}"`,
      `advertised-address = "http://127.0.0.1:${String(nodePort)}/"`,
      '[default-retry-policy]',
      'initial-interval = "100ms"',
      'exponentiation-factor = 2.0',
      'max-interval = "1s"',
      'max-attempts = 200',
      'on-max-attempts = "kill"',
      '[ingress]',
      `bind-address = "127.0.0.1:${String(ingressPort)}"`,
      '[admin]',
      `bind-address = "127.0.0.1:${String(adminPort)}"`,
      '',
    ].join('\n'),
  );
  let output = '';
  const child = spawn(binary(), ['--no-logo', '--config-file', config], {
    env: { ...process.env, RESTATE_LISTEN_MODE: 'tcp', RESTATE_LOG_DISABLE_ANSI_CODES: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer): void => void (output = (output + chunk.toString()).slice(-20_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const admin = `http://127.0.0.1:${String(adminPort)}`;
  const ingress = `http://127.0.0.1:${String(ingressPort)}`;
  await ready(child, `${admin}/health`, () => output);
  await ready(child, `${ingress}/restate/health`, () => output);
  return {
    ingress,
    admin,
    async register(url: string) {
      const response = await fetch(`${admin}/deployments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ uri: url }),
      });
      if (!response.ok) throw new Error(`registering ${url} failed with ${String(response.status)}: ${await response.text()}`);
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
