/**
 * `npm run demo -- --durable` on a machine with nothing but npm's packages:
 * it starts the embedded PostgreSQL server, runs the agent on DBOS in a
 * process it kills with SIGKILL in the middle of a tool call, finishes the
 * run in a second process, and prints what docs/demo.md shows.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, sectionBlocks } from '../readme-blocks';

/** The run id's random part, the same in every transcript. */
const anyRunId = (text: string): string => text.replaceAll(/refund-A-1042-[0-9a-f]{8}/g, 'refund-A-1042-<id>');

describe('npm run demo -- --durable', () => {
  it('prints the run across a killed process as docs/demo.md shows it', { timeout: 180_000 }, () => {
    const environment: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' };
    delete environment.DATABASE_URL;
    const printed = execFileSync(process.execPath, ['--import', 'tsx', join(root, 'examples', 'demo.ts'), '--durable'], {
      cwd: root,
      encoding: 'utf8',
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const shown = sectionBlocks('docs/demo.md', 'A run that survives a killed process').find((block) => block.lang === 'text')?.body;
    expect(anyRunId(printed)).toBe(anyRunId(shown ?? ''));
  });
});
