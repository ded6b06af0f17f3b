/**
 * The conformance suite: every case file in `spec/cases/` is validated against
 * the case format, every `"kind": "chain"` case is run against the library,
 * and every rule of `spec/SPEC.md` must be covered by at least one case.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../src/index';
import { runChainCase } from './conformance/runner';
import { caseBase, caseJsonSchema, ChainCaseSchema, type ChainCase } from './conformance/schema';

const specDirectory = join(import.meta.dirname, '..', 'spec');
const casesDirectory = join(specDirectory, 'cases');

interface LoadedCase {
  readonly file: string;
  readonly raw: unknown;
}

const loaded: LoadedCase[] = readdirSync(casesDirectory)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => ({ file, raw: JSON.parse(readFileSync(join(casesDirectory, file), 'utf8')) as unknown }));

/** Rule ids declared in SPEC.md as `### MW-nnn Title` headings, in every section. */
function specRules(): string[] {
  const text = readFileSync(join(specDirectory, 'SPEC.md'), 'utf8');
  return [...text.matchAll(/^### (MW-\d{3})\b/gm)].map((match) => match[1] as string);
}

const chainCases: ChainCase[] = loaded
  .filter(({ raw }) => (raw as { kind?: unknown }).kind === 'chain')
  .map(({ file, raw }) => {
    const parsed = ChainCaseSchema.safeParse(raw);
    if (!parsed.success) throw new Error(`spec/cases/${file} does not match the chain case format:\n${parsed.error.message}`);
    return parsed.data;
  });

describe('conformance cases', () => {
  describe('case files', () => {
    it.each(loaded.map(({ file, raw }) => [file, raw] as const))('%s has the common case fields', (_file, raw) => {
      const parsed = caseBase.safeParse(raw);
      expect(parsed.success ? 'valid' : parsed.error.message).toEqual('valid');
    });

    it('gives every case a distinct id', () => {
      const ids = loaded.map(({ raw }) => (raw as { id: string }).id);
      expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    });

    it('names each case file after its id', () => {
      const mismatched = loaded.filter(({ file, raw }) => file !== `${(raw as { id: string }).id}.json`).map(({ file }) => file);
      expect(mismatched).toEqual([]);
    });
  });

  describe('rule coverage', () => {
    const rules = specRules();
    const covered = new Set(loaded.flatMap(({ raw }) => (raw as { rules?: string[] }).rules ?? []));

    it('finds the rules of SPEC.md', () => {
      expect(rules.length).toBeGreaterThan(0);
      expect(rules.filter((rule, index) => rules.indexOf(rule) !== index)).toEqual([]);
    });

    it('covers every rule of SPEC.md with at least one case', () => {
      expect(rules.filter((rule) => !covered.has(rule))).toEqual([]);
    });

    it('names only rules that exist in SPEC.md', () => {
      const known = new Set(rules);
      const unknown = loaded.flatMap(({ file, raw }) => ((raw as { rules?: string[] }).rules ?? []).filter((rule) => !known.has(rule)).map((rule) => `${file}: ${rule}`));
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

  describe('runChainCase', () => {
    const base = { id: 'self-check', description: 'A check of the runner itself.', rules: ['MW-005'], kind: 'chain', stage: { name: 's', guard: true } };

    it('reports an error the case does not expect, so the case fails', async () => {
      const testCase = ChainCaseSchema.parse({ ...base, terminal: { calls: [[{ throw: 'boom' }]] }, expect: { events: [] } });
      const { observed } = await runChainCase(testCase);
      expect({ events: observed.events, unexpected: (observed.error as { unexpected: string; text: string }).unexpected, text: (observed.error as { text: string }).text }).toEqual({
        events: [],
        unexpected: 'invoke',
        text: 'boom',
      });
    });

    it('records what it saw, so a wrong trace differs from the observation', async () => {
      const testCase = ChainCaseSchema.parse({
        ...base,
        registry: [{ op: 'add', phase: 'wrap', steps: [{ record: 'w {context}' }, { next: {} }] }],
        terminal: { calls: [[{ record: 't#{call}' }, { yield: { result: true } }]] },
        context: { a: 1 },
        expect: { trace: ['t#1', 'w {"a":1}'] },
      });
      const { observed } = await runChainCase(testCase);
      expect(observed).toEqual({ trace: ['w {"a":1}', 't#1'] });
    });

    it('records an expected setup error that did not happen', async () => {
      const testCase = ChainCaseSchema.parse({
        ...base,
        registry: [{ op: 'add', phase: 'wrap', steps: [{ next: {} }], expectError: { code: 'ERR_INVALID_OPTIONS' } }],
        terminal: { calls: [[{ yield: { result: true } }]] },
        expect: { trace: [] },
      });
      const { observed } = await runChainCase(testCase);
      expect(observed).toEqual({ trace: ['setup error none'] });
    });
  });

  describe('chain cases', () => {
    it.each(chainCases.map((testCase) => [testCase.id, testCase] as const))('%s', async (_id, testCase) => {
      const { observed, error, environment } = await runChainCase(testCase);
      expect(observed).toEqual(testCase.expect);
      if (testCase.expect.error !== undefined) {
        if (testCase.expect.error.code === undefined) {
          // A user error arrives as the very object that was thrown.
          expect(environment.userErrors.has(error)).toBe(true);
        } else {
          expect({ isInstance: MiddlewareError.isInstance(error), name: (error as Error).name }).toEqual({ isInstance: true, name: 'MiddlewareError' });
        }
      }
    });
  });
});
