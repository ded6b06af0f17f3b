/**
 * Runs the `"kind": "reliability"` conformance cases of `spec/cases/` (the
 * `"chain"` ones run in the main conformance suite).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ReliabilityCaseSchema, runReliabilityCase, type ReliabilityCase } from './cases';

const casesDirectory = join(import.meta.dirname, '..', '..', 'spec', 'cases');
const cases = readdirSync(casesDirectory)
  .filter((file) => file.endsWith('.json'))
  .map((file) => JSON.parse(readFileSync(join(casesDirectory, file), 'utf8')) as { kind?: unknown })
  .filter((raw) => raw.kind === 'reliability')
  .map((raw) => ReliabilityCaseSchema.parse(raw) as ReliabilityCase);

describe('reliability conformance cases', () => {
  it('finds the cases', () => {
    expect(cases.length).toBeGreaterThan(0);
  });

  it.each(cases.map((testCase) => [testCase.id, testCase] as const))('%s', async (_id, testCase) => {
    expect(await runReliabilityCase(testCase)).toEqual(testCase.expect);
  });
});
