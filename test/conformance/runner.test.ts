import { describe, expect, it } from 'vitest';
import { libraryTarget, runConformance } from '../../conformance/index';
import { answeringOp, caseById, chainCase, claiming } from './runner-cases';

describe('runConformance', () => {
  describe('a case that holds', () => {
    it('is reported as passed, and so are its rules', async () => {
      const report = await runConformance([caseById('core-short-circuit')], libraryTarget());
      expect({
        cases: report.cases,
        rules: report.rules,
        summary: report.summary,
        conformance: report.conformance,
        filters: report.filters,
      }).toEqual({
        cases: [{ id: 'core-short-circuit', kind: 'chain', rules: ['MW-014'], status: 'passed' }],
        rules: [{ rule: 'MW-014', status: 'passed', passed: 1, failed: 0, notClaimed: 0 }],
        summary: { passed: 1, failed: 0, notClaimed: 0 },
        conformance: { core: true, full: true },
        filters: {},
      });
    });
  });

  describe('a case whose expectation differs', () => {
    it('is reported as failed with the key that differs, what it expects and what was observed', async () => {
      const testCase = caseById('core-short-circuit');
      (testCase.expect as Record<string, unknown>).trace = ['outer', 'inner'];
      const report = await runConformance([testCase], libraryTarget());
      expect({ cases: report.cases, rules: report.rules, conformance: report.conformance }).toEqual({
        cases: [
          {
            id: 'core-short-circuit',
            kind: 'chain',
            rules: ['MW-014'],
            status: 'failed',
            differences: [{ key: 'trace', expected: ['outer', 'inner'], observed: ['outer'] }],
          },
        ],
        rules: [{ rule: 'MW-014', status: 'failed', passed: 0, failed: 1, notClaimed: 0 }],
        conformance: { core: false, full: false },
      });
    });

    it('reports an error the case does not expect', async () => {
      const report = await runConformance(
        [chainCase({ terminal: { calls: [[{ throw: 'boom' }]] }, expect: { events: [] } })],
        libraryTarget(),
      );
      expect(report.cases[0]?.differences).toEqual([
        {
          key: 'error',
          expected: undefined,
          observed: { unexpected: 'invoke', error: { message: 'boom', thrownByCase: true, stage: null, phase: null, handler: null } },
        },
      ]);
    });

    it('records an expected setup error that did not happen as "setup error none"', async () => {
      const testCase = chainCase({
        registry: [{ op: 'add', phase: 'wrap', steps: [{ next: {} }], expectError: { code: 'ERR_INVALID_OPTIONS' } }],
        terminal: { calls: [[{ yield: { result: true } }]] },
        expect: { trace: [] },
      });
      const report = await runConformance([testCase], libraryTarget());
      expect(report.cases[0]?.differences).toEqual([{ key: 'trace', expected: [], observed: ['setup error none'] }]);
    });

    it('fails a user error that arrives as another object with the same message', async () => {
      const target = answeringOp('chain.next', async () => ({
        error: { message: 'boom', thrownByCase: false, stage: null, phase: null, handler: null },
      }));
      const report = await runConformance(
        [chainCase({ terminal: { calls: [[{ throw: 'boom' }]] }, expect: { error: { message: 'boom' } } })],
        target,
      );
      expect(report.cases[0]?.differences).toEqual([
        { key: 'error.identity', expected: 'the very object the case threw', observed: 'another object with that message' },
      ]);
    });

    it('fails a library error that is not genuine', async () => {
      const target = answeringOp('chain.next', async () => ({
        error: {
          code: 'ERR_NO_RESULT',
          genuine: false,
          message: '[ERR_NO_RESULT] x',
          thrownByCase: false,
          stage: 's',
          phase: null,
          handler: null,
        },
      }));
      const report = await runConformance([chainCase({ terminal: { calls: [[]] }, expect: { error: { code: 'ERR_NO_RESULT' } } })], target);
      expect(report.cases[0]?.differences).toEqual([
        { key: 'error.identity', expected: 'a genuine MiddlewareError', observed: 'an error not named MiddlewareError' },
      ]);
    });

    it('compares the runs of an agent case one by one', async () => {
      const testCase = caseById('agent-blocked-tool-result');
      const runs = testCase.runs as { expect: Record<string, unknown> }[];
      (runs[0] as { expect: Record<string, unknown> }).expect = { stopReason: 'toolUse' };
      const report = await runConformance([testCase], libraryTarget());
      expect(report.cases[0]?.differences).toEqual([{ key: 'runs[0].stopReason', expected: 'toolUse', observed: 'endTurn' }]);
    });
  });

  describe('a case the implementation does not claim', () => {
    it.each([
      // A case naming only rules of sections 1 to 3 that is not claimed costs core conformance too.
      [
        'a kind it does not run',
        { kinds: ['chain' as const] },
        'agent-blocked-tool-result',
        'the implementation does not run agent cases',
        true,
      ],
      ['a built-in it does not provide', { builtins: ['timeout'] }, 'middleware-retry-commit', 'needs the built-in middleware retry', true],
      ['a scenario it does not provide', { scenarios: [] }, 'reliability-abandoned', 'needs the reliability scenario abandoned', false],
      [
        'agent loop capabilities it lacks',
        { capabilities: ['systemPrompt'] },
        'agent-cancel-mid-run',
        'needs the agent loop capabilities initialMessages, modelState, agentStream, cancel',
        true,
      ],
    ])('is reported as not claimed, never as passed, when it needs %s', async (_name, changes, id, reason, core) => {
      const testCase = caseById(id);
      const report = await runConformance([testCase], claiming(changes));
      expect({ cases: report.cases, summary: report.summary, conformance: report.conformance }).toEqual({
        cases: [{ id, kind: testCase.kind, rules: testCase.rules, status: 'not-claimed', reason }],
        summary: { passed: 0, failed: 0, notClaimed: 1 },
        conformance: { core, full: false },
      });
    });
  });

  describe('core and full conformance', () => {
    it('keeps core conformance when only cases beyond sections 1 to 3 are not claimed', async () => {
      const report = await runConformance(
        [caseById('core-short-circuit'), caseById('reliability-standard-stages-first-to-second'), caseById('agent-busy')],
        claiming({ kinds: ['chain', 'reliability'], scenarios: [] }),
      );
      expect({ summary: report.summary, conformance: report.conformance }).toEqual({
        summary: { passed: 1, failed: 0, notClaimed: 2 },
        conformance: { core: true, full: false },
      });
    });

    it('is not determined for a filtered run', async () => {
      const report = await runConformance([caseById('core-short-circuit'), caseById('agent-busy')], libraryTarget(), { kinds: ['agent'] });
      expect({ ids: report.cases.map((outcome) => outcome.id), conformance: report.conformance, filters: report.filters }).toEqual({
        ids: ['agent-busy'],
        conformance: null,
        filters: { kinds: ['agent'] },
      });
    });
  });

  describe('filters', () => {
    const cases = ['core-short-circuit', 'registry-explain', 'core-abort-after-event', 'core-abort-before-start'].map(caseById);

    it.each([
      ['rules', { rules: ['MW-051', 'MW-014'] }, ['core-short-circuit', 'registry-explain']],
      ['case ids with a wildcard', { cases: ['core-abort-*'] }, ['core-abort-after-event', 'core-abort-before-start']],
      ['kinds and ids together', { kinds: ['chain' as const], cases: ['registry-explain', 'nothing'] }, ['registry-explain']],
    ])('selects cases by %s', async (_name, options, ids) => {
      const report = await runConformance(cases, libraryTarget(), options);
      expect(report.cases.map((outcome) => outcome.id)).toEqual(ids);
    });
  });

  describe('what a case or a target gets wrong', () => {
    it('fails a case that does not match its format, naming the field', async () => {
      const report = await runConformance([{ ...caseById('core-short-circuit'), stage: { name: 's', guards: true } }], libraryTarget());
      expect(report.cases[0]).toEqual({
        id: 'core-short-circuit',
        kind: 'chain',
        rules: ['MW-014'],
        status: 'failed',
        reason: expect.stringContaining('does not match the chain case format'),
      });
      expect(report.cases[0]?.reason).toContain('guards');
    });

    it('fails a value that is no case at all', async () => {
      const report = await runConformance([{ id: 'x' }], libraryTarget());
      expect(report.cases).toEqual([
        { id: 'x', kind: 'unknown', rules: [], status: 'failed', reason: expect.stringContaining('not a case') },
      ]);
    });

    it('fails a case of an unknown kind', async () => {
      const report = await runConformance([{ id: 'x', description: 'x', rules: ['MW-001'], kind: 'future' }], libraryTarget());
      expect(report.cases).toEqual([{ id: 'x', kind: 'future', rules: ['MW-001'], status: 'failed', reason: 'unknown kind "future"' }]);
    });

    it('fails a case whose request the target could not carry out, with its reason', async () => {
      const target = answeringOp('reliability.run', async () => ({ failure: 'no such scenario here' }));
      const report = await runConformance([caseById('reliability-deep-chain')], target);
      expect(report.cases[0]?.reason).toEqual('reliability.run failed: no such scenario here');
    });

    it('fails a case whose reply does not match the protocol, naming the field', async () => {
      const target = answeringOp('chain.next', async () => ({ done: 'yes' }));
      const report = await runConformance([caseById('core-short-circuit')], target);
      expect(report.cases[0]?.reason).toEqual(
        'the reply to chain.next does not match the protocol: done: Invalid input: expected boolean, received string',
      );
    });

    it('fails a case whose request threw, with the message', async () => {
      const target = answeringOp('agent.run', () => Promise.reject(new Error('lost')));
      const report = await runConformance([caseById('agent-busy')], target);
      expect(report.cases[0]?.reason).toEqual('agent.run threw: lost');
    });

    it('fails a case whose request gets no reply in time, resets the target and goes on', async () => {
      const target = answeringOp('reliability.run', () => new Promise(() => undefined));
      const report = await runConformance([caseById('reliability-deep-chain'), caseById('core-short-circuit')], target, { timeoutMs: 20 });
      expect({ outcomes: report.cases.map((outcome) => [outcome.status, outcome.reason]), resets: target.resets }).toEqual({
        outcomes: [
          ['failed', 'no reply to reliability.run within 20 ms'],
          ['passed', undefined],
        ],
        resets: 1,
      });
    });

    it('refuses a target that speaks another protocol version', async () => {
      await expect(runConformance([], claiming({ protocol: 2 }))).rejects.toThrow(
        'The implementation speaks protocol version 2; this runner speaks version 1.',
      );
    });

    it('refuses a target that does not answer hello', async () => {
      const target = answeringOp('hello', async () => ({ failure: 'not ready' }));
      await expect(runConformance([], target)).rejects.toThrow('The implementation did not answer hello: hello failed: not ready');
    });
  });
});
