/**
 * The conformance suite: every case file in `spec/cases/` has the common
 * fields, every rule of `spec/SPEC.md` is covered by at least one case, and
 * every `"kind": "chain"` case passes when the conformance runner runs it
 * against this library (the reliability and agent kinds run in
 * `test/reliability/cases.test.ts` and `test/agent/conformance.test.ts`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { libraryTarget, runConformance } from '../conformance/index';
import { caseBase } from '../conformance/cases/case-base';
import { caseJsonSchema } from '../conformance/cases/chain-case';
import { caseFiles, casesOfKind, specDirectory } from './conformance/case-files';

/** Rule ids declared in SPEC.md as `### MW-nnn Title` headings, in every section. */
function specRules(): string[] {
  const text = readFileSync(join(specDirectory, 'SPEC.md'), 'utf8');
  return [...text.matchAll(/^### (MW-\d{3})\b/gm)].map((match) => match[1] as string);
}

describe('conformance cases', () => {
  describe('case files', () => {
    it.each(caseFiles.map(({ file, raw }) => [file, raw] as const))('%s has the common case fields', (_file, raw) => {
      const parsed = caseBase.safeParse(raw);
      expect(parsed.success ? 'valid' : parsed.error.message).toEqual('valid');
    });

    it('gives every case a distinct id', () => {
      const ids = caseFiles.map(({ raw }) => raw.id);
      expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    });

    it('names each case file after its id', () => {
      expect(caseFiles.filter(({ file, raw }) => file !== `${String(raw.id)}.json`).map(({ file }) => file)).toEqual([]);
    });
  });

  describe('rule coverage', () => {
    const rules = specRules();
    const covered = new Set(caseFiles.flatMap(({ raw }) => (raw.rules as string[] | undefined) ?? []));

    it('finds the rules of SPEC.md', () => {
      expect(rules.length).toBeGreaterThan(0);
      expect(rules.filter((rule, index) => rules.indexOf(rule) !== index)).toEqual([]);
    });

    it('covers every rule of SPEC.md with at least one case', () => {
      expect(rules.filter((rule) => !covered.has(rule))).toEqual([]);
    });

    it('names only rules that exist in SPEC.md', () => {
      const known = new Set(rules);
      const unknown = caseFiles.flatMap(({ file, raw }) =>
        ((raw.rules as string[] | undefined) ?? []).filter((rule) => !known.has(rule)).map((rule) => `${file}: ${rule}`),
      );
      expect(unknown).toEqual([]);
    });
  });

  describe('case.schema.json', () => {
    it('matches the zod schema of the case format', () => {
      const committed = JSON.parse(readFileSync(join(specDirectory, 'case.schema.json'), 'utf8')) as unknown;
      // Regenerate with: npx tsx test/conformance/export-schema.ts
      expect(committed).toEqual(caseJsonSchema());
    });
  });

  describe('chain cases against this library', () => {
    const target = libraryTarget();

    it.each(casesOfKind('chain').map(({ raw }) => [raw.id, raw] as const))('%s', async (id, raw) => {
      const { cases } = await runConformance([raw], target);
      expect(cases).toEqual([{ id, kind: 'chain', rules: raw.rules, status: 'passed' }]);
    });
  });
});
