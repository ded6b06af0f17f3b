import { describe, expect, it } from 'vitest';
import { libraryTarget, runConformance, type ConformanceTarget } from '../../conformance/index';
import { caseById } from './runner-cases';

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
