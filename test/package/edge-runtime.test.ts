/**
 * The `bare-realm` reliability cases (MW-204) on the installed package:
 * `consumer/edge.mjs` loads each entry point's ESM build, unbundled, into
 * Vercel's edge-runtime, a realm with no `process` and no Node.js API,
 * resolving bare imports by the packages' "exports", and runs the scenario
 * there. The integration tier runs the same cases in headless Chromium.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../readme-blocks';
import { consumer } from './consumer';

const casesDirectory = join(root, 'spec', 'cases');
const cases = readdirSync(casesDirectory)
  .map(
    (file) =>
      JSON.parse(readFileSync(join(casesDirectory, file), 'utf8')) as {
        id: string;
        kind: string;
        scenario?: string;
        expect: Record<string, unknown>;
      },
  )
  .filter((testCase) => testCase.kind === 'reliability' && testCase.scenario === 'bare-realm');

describe('the installed package in edge-runtime', () => {
  it('has bare-realm cases to run', () => {
    expect(cases.length).toBeGreaterThanOrEqual(1);
  });

  it.each(cases.map((testCase) => [testCase.id, testCase] as const))('passes %s, loading only its own ESM build', (_id, testCase) => {
    const edgeRuntime = createRequire(import.meta.url).resolve('edge-runtime');
    const printed = execFileSync(process.execPath, ['--experimental-vm-modules', '--no-warnings', 'edge.mjs', edgeRuntime], {
      cwd: consumer,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // No other package loads: immer is built in (loaded on its own it reads `process`), zod serves types only.
    expect(JSON.parse(printed)).toEqual({ ...testCase.expect, packages: ['staged-middleware'] });
  });
});
