import { describe, expect, it } from 'vitest';
import {
  formatReport,
  libraryTarget,
  runConformance,
  type Claims,
  type ConformanceTarget,
  type ProtocolRequest,
} from '../../src/conformance/index';
import { caseFiles } from './case-files';

/** The case file with this id. */
function caseById(id: string): Record<string, unknown> {
  const found = caseFiles.find(({ raw }) => raw.id === id);
  if (found === undefined) throw new Error(`no case ${id}`);
  return structuredClone(found.raw);
}

/** A chain case of its own, for what no committed case shows. */
function chainCase(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    id: 'self-check',
    description: 'A check of the runner.',
    rules: ['MW-005'],
    kind: 'chain',
    stage: { name: 's', guard: true },
    ...fields,
  };
}

/** This library, claiming something else in its hello. */
function claiming(changes: Partial<Claims>, inner: ConformanceTarget = libraryTarget()): ConformanceTarget {
  return {
    request: async (request) =>
      request.op === 'hello' ? { ...((await inner.request(request)) as object), ...changes } : inner.request(request),
  };
}

/** This library, except that one op is answered by `answer`. */
function answeringOp(
  op: ProtocolRequest['op'],
  answer: (request: ProtocolRequest) => Promise<unknown>,
): ConformanceTarget & { resets: number } {
  const inner = libraryTarget();
  const target = {
    resets: 0,
    request: (request: ProtocolRequest) => (request.op === op ? answer(request) : inner.request(request)),
    reset: async () => {
      target.resets++;
    },
  };
  return target;
}

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
        'core conformance (sections 1 to 3): no',
        'full conformance: no',
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

describe('runConformance with agent cases', () => {
  /** The reference agent's observation of a case, changed by `change`. */
  function observedAs(change: (observed: { runs: Record<string, unknown>[] }) => void): ConformanceTarget {
    const inner = libraryTarget();
    return {
      request: async (request) => {
        const reply = (await inner.request(request)) as { observed?: { runs: Record<string, unknown>[] } };
        if (request.op === 'agent.run' && reply.observed !== undefined) change(reply.observed);
        return reply;
      },
    };
  }

  const refusal = {
    code: 'ERR_INVALID_OPTIONS',
    genuine: true,
    message: '[ERR_INVALID_OPTIONS] input[0].content[0].loop refers back to input[0] (a cycle)',
    thrownByCase: false,
    stage: 'agentStream',
    phase: null,
    handler: null,
  };

  it.each([
    [
      'a run that should fail but succeeded',
      (observed: { runs: Record<string, unknown>[] }) => {
        delete observed.runs[0]?.error;
      },
      [
        {
          key: 'runs[0].error',
          expected: { code: 'ERR_INVALID_OPTIONS', stage: 'agentStream', messageIncludes: 'input[0].content[0].loop' },
          observed: undefined,
        },
      ],
    ],
    [
      'a message without the text the rule requires',
      (observed: { runs: Record<string, unknown>[] }) =>
        void ((observed.runs[0] as Record<string, unknown>).error = { ...refusal, message: '[ERR_INVALID_OPTIONS] bad input' }),
      [
        {
          key: 'runs[0].error',
          expected: { code: 'ERR_INVALID_OPTIONS', stage: 'agentStream', messageIncludes: 'input[0].content[0].loop' },
          observed: { code: 'ERR_INVALID_OPTIONS', stage: 'agentStream', messageIncludes: '[ERR_INVALID_OPTIONS] bad input' },
        },
      ],
    ],
    [
      'a library error that is not genuine',
      (observed: { runs: Record<string, unknown>[] }) =>
        void ((observed.runs[0] as Record<string, unknown>).error = { ...refusal, genuine: false }),
      [{ key: 'runs[0].error.identity', expected: 'a genuine MiddlewareError', observed: 'an error not named MiddlewareError' }],
    ],
    [
      'a run that failed although it should not',
      (observed: { runs: Record<string, unknown>[] }) => void ((observed.runs[1] as Record<string, unknown>).error = refusal),
      [{ key: 'runs[1].error', expected: undefined, observed: refusal }],
    ],
    [
      'a run too few',
      (observed: { runs: Record<string, unknown>[] }) => void observed.runs.pop(),
      [{ key: 'runs.length', expected: 2, observed: 1 }],
    ],
  ])('fails %s', async (_name, change, differences) => {
    const report = await runConformance([caseById('agent-copy-cycle')], observedAs(change));
    expect(report.cases[0]?.differences).toEqual(differences);
  });

  it('fails a user error that arrives as another object', async () => {
    const report = await runConformance(
      [caseById('agent-error-passes-through')],
      observedAs((observed) => void ((observed.runs[0] as { error: Record<string, unknown> }).error.thrownByCase = false)),
    );
    expect(report.cases[0]?.differences).toEqual([
      { key: 'runs[0].error.identity', expected: 'the very object the case threw', observed: 'another object with that message' },
    ]);
  });

  it('fails a run of a loop with AgentStreamStage that does not end with an agentResult', async () => {
    const report = await runConformance(
      [caseById('agent-stream-stage')],
      observedAs((observed) => void ((observed.runs[0] as Record<string, unknown>).lastEventType = 'modelResult')),
    );
    expect(report.cases[0]?.differences).toEqual([{ key: 'runs[0].lastEventType', expected: 'agentResult', observed: 'modelResult' }]);
  });

  it('compares only the keys each expected model call lists, and every key of a call too many', async () => {
    const testCase = caseById('agent-model-request');
    const expected = testCase.expect as { modelCalls: Record<string, unknown>[] };
    const report = await runConformance([{ ...testCase, expect: { ...expected, modelCalls: [] } }], libraryTarget());
    expect(
      report.cases[0]?.differences?.map((difference) => [
        difference.key,
        Object.keys((difference.observed as Record<string, unknown>[])[0] ?? {}),
      ]),
    ).toEqual([['modelCalls', ['systemPrompt', 'systemBlocks', 'messageCount', 'lastMessage', 'state', 'toolNames']]]);
  });
});
