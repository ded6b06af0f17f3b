/**
 * The agent cases run on loops of their own through agentLoopTarget: what a
 * loop does not claim never fails a case it claims, and a loop that breaks a
 * rule is told which.
 */
import { describe, expect, it } from 'vitest';
import { agentLoopTarget, runConformance } from '../../conformance/index';
import { casesOfKind } from './case-files';
import { caseById } from './runner-cases';
import { turnControlLoop } from './turn-control-loop';

describe('agentLoopTarget', () => {
  describe('with a loop that binds no model state', () => {
    it('passes every agent case its capabilities cover and reports the others as not claimed', async () => {
      const adapter = turnControlLoop({ checkTurnResults: true });
      const cases = casesOfKind('agent');
      const covered = (needs: unknown): boolean => (needs as string[]).every((need) => (adapter.capabilities as string[]).includes(need));
      const report = await runConformance(
        cases.map(({ raw }) => raw),
        agentLoopTarget(adapter),
      );
      expect(
        Object.fromEntries(report.cases.map((outcome) => [outcome.id, [outcome.status, outcome.reason, outcome.differences]])),
      ).toEqual(
        Object.fromEntries(
          cases.map(({ raw }) => [
            raw.id,
            covered(raw.needs)
              ? ['passed', undefined, undefined]
              : ['not-claimed', expect.stringMatching(/^needs the agent loop capabilities /), undefined],
          ]),
        ),
      );
      expect(cases.filter(({ raw }) => covered(raw.needs)).length).toBeGreaterThanOrEqual(25);
    });
  });

  describe('with a loop that acts on a TurnStage result it must refuse', () => {
    it('fails the case, saying what the loop did wrong and what checks a result', async () => {
      const report = await runConformance(
        [caseById('agent-turn-invalid-result')],
        agentLoopTarget(turnControlLoop({ checkTurnResults: false })),
      );
      expect(report.cases.map(({ status, reason, differences }) => ({ status, reason, differences }))).toEqual([
        {
          status: 'failed',
          reason:
            "agent.run failed: a loop acting on unchecked turn results acted on a TurnStage result it must refuse (MW-126): decision must be 'natural', 'loopToModel' or 'stop', got the string \"sideways\". A loop rejects the run with that error (ERR_INVALID_OPTIONS, stage 'turn') instead; readTurnResult(result) of staged-middleware/agent checks a result and throws it.",
          differences: undefined,
        },
      ]);
    });

    it('still passes the cases where TurnStage delivers results it may act on', async () => {
      const report = await runConformance(
        [caseById('agent-turn-inject-loop'), caseById('agent-turn-invalid-action')],
        agentLoopTarget(turnControlLoop({ checkTurnResults: false })),
      );
      expect(report.cases.map(({ id, status }) => [id, status])).toEqual([
        ['agent-turn-inject-loop', 'passed'],
        ['agent-turn-invalid-action', 'passed'],
      ]);
    });
  });
});
