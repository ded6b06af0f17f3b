/**
 * The consumer project the global setup (`install.ts`) created, as the test
 * files use it: its directory, and running one of its scripts.
 */
import { execFileSync } from 'node:child_process';
import { inject } from 'vitest';

/** The directory of the consumer project; `staged-middleware` resolves from it. */
export const consumer = inject('consumer');

/** Runs one script of the consumer project with Node.js and returns what it printed; a failure carries its stderr. */
export function runScript(script: string): string {
  try {
    return execFileSync(process.execPath, [script], { cwd: consumer, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`node ${script} failed in the consumer project:\n${stderr ?? ''}${stdout ?? ''}`);
  }
}
