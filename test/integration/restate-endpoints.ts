/**
 * The endpoint processes of the Restate tests (`restate-endpoint.ts`), each
 * started on the one port the deployment is registered at, and killed or
 * stopped by the test.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { root } from '../readme-blocks';

/** A running endpoint process. */
export interface Endpoint {
  /** Resolves once it listens. */
  readonly listening: Promise<void>;
  /** Resolves to the point it stopped at (`options.stopAt`). */
  readonly reached: Promise<string>;
  /** Kills it with SIGKILL and resolves once it is gone. */
  readonly kill: () => Promise<void>;
}

const running = new Set<Endpoint>();

/** Kills every endpoint still running (after a test that failed half-way, so the next one finds the port free). */
export async function killEndpoints(): Promise<void> {
  await Promise.all([...running].map((endpoint) => endpoint.kill()));
}

/** Starts `restate-endpoint.ts` with `options` (port, effects file, stopAt). */
export function startEndpoint(options: { readonly port: number; readonly effects: string; readonly stopAt?: string }): Endpoint {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      './test/integration/with-resolvers.ts',
      'test/integration/restate-endpoint.ts',
      JSON.stringify(options),
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  let onListening: () => void = () => undefined;
  let onReached: (point: string) => void = () => undefined;
  const listening = new Promise<void>((resolve, reject) => {
    onListening = resolve;
    void exited.then(() => {
      reject(new Error(`the endpoint exited before it listened:\n${stderr}`));
    });
  });
  const reached = new Promise<string>((resolve) => (onReached = resolve));
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === 'listening') onListening();
    if (line.startsWith('reached ')) onReached(line.slice('reached '.length));
  });
  const endpoint: Endpoint = {
    listening,
    reached,
    async kill() {
      running.delete(endpoint);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
  running.add(endpoint);
  return endpoint;
}

/**
 * The side effects an effects file holds, in order, each as `<process> <effect>`: the process
 * numbered 1, 2, ... in the order its first effect appears (pids are not known in advance).
 */
export function effectsOf(file: string): string[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const processes: string[] = [];
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const space = line.indexOf(' ');
      const pid = line.slice(0, space);
      if (!processes.includes(pid)) processes.push(pid);
      return `${String(processes.indexOf(pid) + 1)} ${line.slice(space + 1)}`;
    });
}
