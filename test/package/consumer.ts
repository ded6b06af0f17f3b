/**
 * The consumer project the global setup (`install.ts`) created, as the test
 * files use it: its directory, and running one of its scripts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { inject } from 'vitest';

/** The directory of the consumer project; `staged-middleware` resolves from it. */
export const consumer = inject('consumer');

/** Runs one script of the consumer project with Node.js and returns what it printed; a failure carries its stderr. */
export function runScript(script: string): string {
  try {
    return execFileSync(process.execPath, [script], {
      cwd: consumer,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`node ${script} failed in the consumer project:\n${stderr ?? ''}${stdout ?? ''}`);
  }
}

/** Runs `npx staged-middleware <args>` in the consumer project, as a user does; returns its exit code and output (npm's warnings left out). */
export function runBin(args: readonly string[]): { code: number; stdout: string; stderr: string } {
  const windows = process.platform === 'win32';
  const result = spawnSync(windows ? 'npx.cmd' : 'npx', ['--no', 'staged-middleware', ...args], {
    cwd: consumer,
    encoding: 'utf8',
    shell: windows,
    env: { ...process.env, NO_COLOR: '1' },
  });
  // npm's own warnings about the machine's configuration are not the command's.
  const stderr = result.stderr
    .split('\n')
    .filter((line) => !line.startsWith('npm warn'))
    .join('\n');
  return { code: result.status ?? -1, stdout: result.stdout, stderr };
}
