import { describe, expect, it } from 'vitest';
import { formatReport, libraryTarget, runConformance } from '../../conformance/index';
import { caseById, chainCase, claiming } from './runner-cases';

describe('formatReport', () => {
  it('writes one line per case, what differed, the rules and the conformance', async () => {
    const failing = caseById('core-short-circuit');
    (failing.expect as Record<string, unknown>).trace = [];
    const report = await runConformance(
      [failing, caseById('registry-explain'), caseById('agent-busy')],
      claiming({ kinds: ['chain'], builtins: [] }),
    );
    expect(formatReport(report)).toEqual(
      [
        'conformance of staged-middleware (protocol 1)',
        `  claims: kinds chain; built-ins none; scenarios ${(report.implementation.scenarios ?? []).join(', ')}; agent capabilities ${(report.implementation.capabilities ?? []).join(', ')}`,
        '',
        'chain cases',
        '  FAIL        core-short-circuit (MW-014)',
        '      trace',
        '        expected []',
        '        observed ["outer"]',
        '  pass        registry-explain (MW-051)',
        '',
        'agent cases',
        '  not claimed agent-busy (MW-117): the implementation does not run agent cases',
        '',
        'rules: 1 passed, 1 failed (MW-014), 1 not fully claimed (MW-117)',
        'cases: 1 passed, 1 failed, 1 not claimed',
        'core conformance (sections 1 to 3): no, blocked by 1 case: core-short-circuit (FAIL)',
        'full conformance: no, blocked by 2 cases: core-short-circuit (FAIL), agent-busy (not claimed)',
        '',
      ].join('\n'),
    );
  });

  it('says when the run was filtered and shows an absent value as absent', async () => {
    const report = await runConformance(
      [chainCase({ terminal: { calls: [[{ yield: { result: true } }]] }, expect: { events: [{ result: true }], explain: 'x' } })],
      libraryTarget(),
      { cases: ['self-check'] },
    );
    expect(formatReport(report).split('\n').slice(2, 9)).toEqual([
      '  filters: {"cases":["self-check"]}',
      '',
      'chain cases',
      '  FAIL        self-check (MW-005)',
      '      explain',
      '        expected "x"',
      `        observed ${JSON.stringify('stage "s"\n└─ terminal')}`,
    ]);
  });
});
