/**
 * The conformance command as installed (`npx staged-middleware conformance`):
 * the package's own `bin`, run on the cases it ships (and on cases given
 * with `--cases`, as one file or a directory), against the built
 * library (its ESM and CommonJS builds as the two copies of `second-copy`)
 * and against the built library serving the protocol in a child process.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../readme-blocks';
import { consumer, runBin } from './consumer';

const casesDirectory = join(root, 'spec', 'cases');
const caseFiles = readdirSync(casesDirectory).filter((file) => file.endsWith('.json'));
const caseCount = caseFiles.length;
const chainCount = caseFiles.filter(
  (file) => (JSON.parse(readFileSync(join(casesDirectory, file), 'utf8')) as { kind: string }).kind === 'chain',
).length;

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

  it.each([
    [
      'one file of cases (the one the package ships)',
      () => createRequire(join(consumer, 'package.json')).resolve('staged-middleware/conformance/cases.json'),
    ],
    ['a directory of case files', () => casesDirectory],
  ])('runs the cases of %s given with --cases', (_name, path) => {
    const { code, stdout, stderr } = runBin(['conformance', '--cases', path(), '--kind', 'chain', '--json']);
    expect({ code, stderr, summary: (JSON.parse(stdout) as { summary: unknown }).summary }).toEqual({
      code: 0,
      stderr: '',
      summary: { passed: chainCount, failed: 0, notClaimed: 0 },
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
