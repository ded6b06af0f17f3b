/**
 * Runs the `"kind": "reliability"` conformance cases of `spec/cases/` with
 * the conformance runner against this library (the `"chain"` ones run in the
 * main conformance suite), after checking each against its format.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reliabilityCaseJsonSchema, ReliabilityCaseSchema } from '../../conformance/cases/reliability-case';
import { libraryTarget, runConformance } from '../../conformance/index';
import { casesOfKind, specDirectory, vitestHost } from '../conformance/case-files';

const raw = casesOfKind('reliability').map(({ file, raw: value }) => ({ file, value }));

/** A valid case of each scenario, to show what the schema rejects when one field is wrong. */
const valid = {
  id: 'reliability-example',
  description: 'A well-formed case.',
  rules: ['MW-068'],
  kind: 'reliability',
  scenario: 'deep-chain',
  layers: 2,
  events: 1,
  stop: 'drain',
  expect: { delivered: 1, finallys: 'innermost-first', error: null },
} as const;

/** A valid second-copy case, whose fields the rows below change. */
const secondCopy = {
  id: 'reliability-second-copy-example',
  description: 'A well-formed case.',
  rules: ['MW-200'],
  kind: 'reliability',
  scenario: 'second-copy',
  registerThrough: 'first',
  agentFrom: 'second',
  expect: {
    sameStages: true,
    trace: [],
    toolCalls: 0,
    stopReason: 'endTurn',
    recognised: { stage: true, phaseToken: true, error: true, result: true, interrupt: true },
  },
} as const;

describe('ReliabilityCaseSchema', () => {
  describe('the committed cases', () => {
    it('finds the cases', () => {
      expect(raw.length).toBeGreaterThan(0);
    });

    it.each(raw.map(({ file, value }) => [file, value] as const))('%s matches the format and is named after its id', (file, value) => {
      const parsed = ReliabilityCaseSchema.safeParse(value);
      expect({ success: parsed.success, issues: parsed.error?.issues ?? [], file }).toEqual({
        success: true,
        issues: [],
        file: `${String(value.id)}.json`,
      });
    });
  });

  describe('a malformed case', () => {
    it('accepts the well-formed examples the rows below change', () => {
      const queued = {
        id: 'x',
        description: 'x',
        rules: ['MW-061'],
        kind: 'reliability',
        scenario: 'queued-calls',
        events: [],
        calls: ['next'],
        expect: { settled: [], outcomes: [] },
      };
      const concurrent = {
        id: 'x',
        description: 'x',
        rules: ['MW-065'],
        kind: 'reliability',
        scenario: 'concurrent-invokes',
        steps: [{ add: 't' }],
        expect: {},
      };
      expect([valid, queued, concurrent, secondCopy].map((value) => ReliabilityCaseSchema.safeParse(value).success)).toEqual([
        true,
        true,
        true,
        true,
      ]);
    });

    it.each([
      ['an unknown scenario', { ...valid, scenario: 'deep-chains' }],
      ['a misspelt parameter', { ...valid, layer: 2 }],
      ['a parameter of another scenario', { ...valid, pulls: 1 }],
      ['a missing parameter', { ...valid, stop: undefined }],
      ['a stop the runner does not know', { ...valid, stop: 'halt' }],
      ['an expect key nothing observes', { ...valid, expect: { ...valid.expect, trace: [] } }],
      ['a missing expect key', { ...valid, expect: { delivered: 1, finallys: 'innermost-first' } }],
      ['a rule id of the wrong shape', { ...valid, rules: ['MW-68'] }],
      ['no rules', { ...valid, rules: [] }],
      ['another kind', { ...valid, kind: 'chain' }],
      ['a fractional layer count', { ...valid, layers: 1.5 }],
      [
        'a queued call the runner cannot make',
        {
          id: 'x',
          description: 'x',
          rules: ['MW-061'],
          kind: 'reliability',
          scenario: 'queued-calls',
          events: [],
          calls: ['peek'],
          expect: { settled: [], outcomes: [] },
        },
      ],
      ['a copy that is neither first nor second', { ...secondCopy, registerThrough: 'third' }],
      [
        'a recognition nothing observes',
        { ...secondCopy, expect: { ...secondCopy.expect, recognised: { ...secondCopy.expect.recognised, registry: true } } },
      ],
      [
        'a concurrent step that is neither add, remove nor invoke',
        {
          id: 'x',
          description: 'x',
          rules: ['MW-065'],
          kind: 'reliability',
          scenario: 'concurrent-invokes',
          steps: [{ wait: 1 }],
          expect: {},
        },
      ],
    ])('rejects %s', (_name, value) => {
      expect(ReliabilityCaseSchema.safeParse(value).success).toBe(false);
    });
  });

  describe('reliability-case.schema.json', () => {
    it('matches the zod schema of the reliability case format', () => {
      const committed = JSON.parse(readFileSync(join(specDirectory, 'reliability-case.schema.json'), 'utf8')) as unknown;
      // Regenerate with: npx tsx test/conformance/export-schema.ts
      expect(committed).toEqual(reliabilityCaseJsonSchema());
    });

    it('describes every scenario the runner provides', () => {
      const schema = reliabilityCaseJsonSchema() as { oneOf: { properties: { scenario: { const: string } } }[] };
      expect(schema.oneOf.map((variant) => variant.properties.scenario.const)).toEqual([
        'queued-calls',
        'guard-throws',
        'throw-when-called',
        'concurrent-invokes',
        'concurrent-writeback',
        'abandoned',
        'deep-chain',
        'nested-invokes',
        'second-copy',
        'handed-out-values',
        'bare-realm',
      ]);
    });
  });
});

describe('reliability cases against this library', () => {
  const target = libraryTarget({ host: vitestHost });

  it.each(raw.map(({ value }) => [value.id, value] as const))('%s', async (id, value) => {
    const { cases } = await runConformance([value], target);
    expect(cases).toEqual([{ id, kind: 'reliability', rules: value.rules, status: 'passed' }]);
  });
});
