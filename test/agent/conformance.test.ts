/**
 * Runs the agent conformance cases (`spec/cases/agent-*.json`) with the
 * conformance runner against the reference agent, after checking each
 * against the case format and the capabilities it declares.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentCase, agentCaseJsonSchema, type AgentCase } from '../../conformance/cases/agent-case';
import { libraryTarget, runConformance } from '../../conformance/index';
import { casesOfKind, specDirectory } from '../conformance/case-files';
import { derivedNeeds } from './case-needs';

const files = casesOfKind('agent');

describe('agent conformance cases', () => {
  it('finds the agent case files', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  describe.each(files.map(({ file, raw }) => [file, raw] as const))('%s', (file, raw) => {
    const parsed = agentCase.safeParse(raw);

    it('matches the case schema and is named after its id', () => {
      expect(parsed.error?.issues ?? []).toEqual([]);
      expect(file).toEqual(`${parsed.data?.id}.json`);
    });

    it('declares exactly the capabilities it uses', () => {
      expect((raw as { needs?: unknown }).needs).toEqual(derivedNeeds(parsed.data as AgentCase));
    });
  });
});

describe('agent cases against the reference agent', () => {
  const target = libraryTarget();

  it.each(files.map(({ raw }) => [raw.id, raw] as const))('%s', async (id, raw) => {
    const { cases } = await runConformance([raw], target);
    expect(cases).toEqual([{ id, kind: 'agent', rules: raw.rules, status: 'passed' }]);
  });
});

describe('spec sections 5 to 5e', () => {
  it('has at least one agent case for every rule MW-100 to MW-179, MW-270 to MW-299 and MW-330 to MW-359 it defines', () => {
    // The rules under the headings of sections 5 to 5e (rateLimit's MW-277 – MW-279 sit with the built-in middleware).
    const sections = readFileSync(join(specDirectory, 'SPEC.md'), 'utf8')
      .split(/^(?=## )/m)
      .filter((section) => /^## 5[a-z]?\. /.test(section));
    const defined = sections.flatMap((section) => [...section.matchAll(/^### (MW-\d{3}) /gm)].map((match) => match[1] as string));
    const covered = new Set(files.flatMap(({ raw }) => raw.rules as string[]));
    expect(defined.length).toBeGreaterThan(0);
    expect(defined.filter((rule) => !covered.has(rule))).toEqual([]);
  });
});

describe('agent-case.schema.json', () => {
  const committed = JSON.parse(readFileSync(join(specDirectory, 'agent-case.schema.json'), 'utf8')) as {
    required: string[];
    additionalProperties: boolean;
    properties: Record<string, unknown>;
  };

  it('matches the zod schema of the agent case format', () => {
    // Regenerate with: npx tsx test/conformance/export-schema.ts
    expect(committed).toEqual(agentCaseJsonSchema());
  });

  it('states the whole agent format, closed to unknown keys', () => {
    expect([Object.keys(committed.properties), committed.required, committed.additionalProperties]).toEqual([
      ['id', 'description', 'rules', 'kind', 'needs', 'agent', 'handlers', 'runs', 'expect'],
      ['id', 'description', 'rules', 'kind', 'needs', 'agent', 'runs'],
      false,
    ]);
  });
});
