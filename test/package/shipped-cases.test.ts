/**
 * The conformance cases as the package ships them: one file,
 * `staged-middleware/conformance/cases.json`, holding every case of
 * `spec/cases/` (where the repository keeps one file per case) in file name
 * order, read by a program through the export and run through the
 * programmatic API (`consumer/shipped-cases.mjs`; `consumer/both-builds.cjs`
 * reads it with require). The command's use of it is in
 * `conformance-cli.test.ts`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../readme-blocks';
import { consumer, runScript } from './consumer';

const casesDirectory = join(root, 'spec', 'cases');
const repositoryCases = readdirSync(casesDirectory)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => JSON.parse(readFileSync(join(casesDirectory, file), 'utf8')) as { kind: string });

/** Where the export resolves from the consumer project. */
const shippedFile = createRequire(join(consumer, 'package.json')).resolve('staged-middleware/conformance/cases.json');

describe('staged-middleware/conformance/cases.json', () => {
  it('holds every case of spec/cases/, in file name order', () => {
    expect(JSON.parse(readFileSync(shippedFile, 'utf8'))).toEqual(repositoryCases);
  });

  it('is the one form of the cases in the package: no spec/cases/ directory is installed', () => {
    const installed = join(consumer, 'node_modules', 'staged-middleware');
    expect({ file: existsSync(shippedFile), directory: existsSync(join(installed, 'spec', 'cases')) }).toEqual({
      file: true,
      directory: false,
    });
  });

  it('runs through runConformance in a program of its own', () => {
    const chain = repositoryCases.filter((testCase) => testCase.kind === 'chain').length;
    expect(JSON.parse(runScript('shipped-cases.mjs'))).toEqual({
      cases: repositoryCases.length,
      summary: { passed: chain, failed: 0, notClaimed: 0 },
    });
    expect(chain).toBeGreaterThan(0);
  });
});
