/**
 * The conformance command as installed (`npx staged-middleware conformance`):
 * the package's own `bin`, run on the cases it ships, against the built
 * library (its ESM and CommonJS builds as the two copies of `second-copy`)
 * and against the built library serving the protocol in a child process.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../readme-blocks';
import { runBin } from './consumer';

const caseCount = readdirSync(join(root, 'spec', 'cases')).filter((file) => file.endsWith('.json')).length;

/** The summary, conformance and not-passed cases of a JSON report. */
function verdict(stdout: string): unknown {
  const report = JSON.parse(stdout) as { summary: unknown; conformance: unknown; cases: { id: string; status: string }[] };
  return {
    summary: report.summary,
    conformance: report.conformance,
    notPassed: report.cases.filter((outcome) => outcome.status !== 'passed'),
  };
}

describe('npx staged-middleware conformance', () => {
  it('passes every shipped case against the installed library', () => {
    const { code, stdout, stderr } = runBin(['conformance', '--json']);
    expect({ code, stderr, verdict: verdict(stdout) }).toEqual({
      code: 0,
      stderr: '',
      verdict: { summary: { passed: caseCount, failed: 0, notClaimed: 0 }, conformance: { core: true, full: true }, notPassed: [] },
    });
  });

  it('passes the reliability cases against the installed library serving the protocol in a child process', () => {
    const { code, stdout, stderr } = runBin([
      'conformance',
      '--kind',
      'reliability',
      '--json',
      '--spawn',
      'npx --no staged-middleware conformance serve',
    ]);
    const reliability = (JSON.parse(stdout) as { cases: unknown[] }).cases.length;
    expect({ code, stderr, verdict: verdict(stdout), reliability }).toEqual({
      code: 0,
      stderr: '',
      verdict: { summary: { passed: reliability, failed: 0, notClaimed: 0 }, conformance: null, notPassed: [] },
      reliability: expect.any(Number),
    });
    expect(reliability).toBeGreaterThan(0);
  });
});
