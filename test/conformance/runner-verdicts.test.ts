import { describe, expect, it } from 'vitest';
import { formatReport, libraryTarget, runConformance } from '../../conformance/index';
import { caseById, claiming } from './runner-cases';

describe('runConformance', () => {
  describe('a built-in claimed in part', () => {
    const cases = ['middleware-cache-hit', 'middleware-cache-serialised-store', 'middleware-cache-store-fails'].map(caseById);

    it('runs the cases using only the options it claims and reports the others as not claimed, naming what they need', async () => {
      const report = await runConformance(cases, claiming({ builtins: [{ name: 'cache', options: ['key', 'ttlMs', 'store=json'] }] }));
      expect(report.cases.map(({ id, status, reason }) => ({ id, status, reason }))).toEqual([
        { id: 'middleware-cache-hit', status: 'passed', reason: undefined },
        { id: 'middleware-cache-serialised-store', status: 'passed', reason: undefined },
        {
          id: 'middleware-cache-store-fails',
          status: 'not-claimed',
          reason: 'claims only part of the built-in cache: needs the options store=rejects, onError',
        },
      ]);
    });

    it('claims only the cases its patterns match', async () => {
      const report = await runConformance(cases, claiming({ builtins: [{ name: 'cache', cases: ['middleware-cache-s*'] }] }));
      expect(report.cases.map(({ id, status, reason }) => ({ id, status, reason }))).toEqual([
        {
          id: 'middleware-cache-hit',
          status: 'not-claimed',
          reason: 'claims only part of the built-in cache: the case is not among its cases',
        },
        { id: 'middleware-cache-serialised-store', status: 'passed', reason: undefined },
        { id: 'middleware-cache-store-fails', status: 'passed', reason: undefined },
      ]);
    });

    it('runs every case of the built-in when it is also claimed whole', async () => {
      const report = await runConformance(cases, claiming({ builtins: ['cache', { name: 'cache', options: ['key'] }] }));
      expect(report.summary).toEqual({ passed: 3, failed: 0, notClaimed: 0 });
    });

    it('shows the part in the text report', async () => {
      const report = await runConformance(
        [caseById('middleware-cache-hit')],
        claiming({ kinds: ['chain'], builtins: ['retry', { name: 'cache', options: ['key', 'store=json'], cases: ['middleware-*'] }] }),
      );
      expect(formatReport(report).split('\n')[1]).toEqual(
        `  claims: kinds chain; built-ins retry, cache (options key, store=json; cases middleware-*); scenarios ${(report.implementation.scenarios ?? []).join(', ')}; agent capabilities ${(report.implementation.capabilities ?? []).join(', ')}`,
      );
    });
  });

  describe('what blocks conformance', () => {
    it('names the cases that failed or were not claimed, those core conformance needs apart', async () => {
      const failing = caseById('core-short-circuit');
      (failing.expect as Record<string, unknown>).trace = [];
      const report = await runConformance(
        [failing, caseById('registry-explain'), caseById('reliability-abandoned'), caseById('agent-busy')],
        claiming({ scenarios: [] }),
      );
      expect({ conformance: report.conformance, blockedBy: report.blockedBy }).toEqual({
        conformance: { core: false, full: false },
        blockedBy: { core: ['core-short-circuit', 'reliability-abandoned'], full: ['core-short-circuit', 'reliability-abandoned'] },
      });
      expect(formatReport(report).split('\n').slice(-4)).toEqual([
        'core conformance (sections 1 to 3): no, blocked by 2 cases: core-short-circuit (FAIL), reliability-abandoned (not claimed)',
        'full conformance: no, blocked by 2 cases: core-short-circuit (FAIL), reliability-abandoned (not claimed)',
        'agent loop: every agent case it claims passed (1 of 1 claimed)',
        '',
      ]);
    });

    it('names ten cases and counts the rest', async () => {
      const ids = Array.from({ length: 12 }, (_, index) => `agent-busy-${index}`);
      const report = await runConformance(
        ids.map((id) => ({ ...caseById('agent-busy'), id })),
        claiming({ capabilities: [] }),
      );
      expect(formatReport(report).split('\n').slice(-5, -1)).toEqual([
        'core conformance (sections 1 to 3): yes',
        `full conformance: no, blocked by 12 cases: ${ids
          .slice(0, 10)
          .map((id) => `${id} (not claimed)`)
          .join(', ')} and 2 more`,
        'agent loop: every agent case it claims passed (0 of 12 claimed)',
        '  not claimed: 12 (needs the agent loop capabilities runChecks: 12)',
      ]);
    });
  });

  describe('the agent loop', () => {
    it('tells how the loop did when every agent case ran, though only the agent cases did', async () => {
      const failing = caseById('agent-blocked-tool-result');
      const runs = failing.runs as { expect: Record<string, unknown> }[];
      (runs[0] as { expect: Record<string, unknown> }).expect = { stopReason: 'toolUse' };
      const report = await runConformance(
        [caseById('core-short-circuit'), caseById('agent-busy'), failing, caseById('agent-durable-replay')],
        claiming({ capabilities: ['runChecks'] }),
        { kinds: ['agent'] },
      );
      expect({ conformance: report.conformance, blockedBy: report.blockedBy, agentLoop: report.agentLoop }).toEqual({
        conformance: null,
        blockedBy: null,
        agentLoop: { passed: false, cases: 3, failed: ['agent-blocked-tool-result'], notClaimed: ['agent-durable-replay'] },
      });
      expect(formatReport(report).split('\n').slice(-4, -1)).toEqual([
        'core and full conformance: not determined (only the agent cases ran)',
        'agent loop: 1 of the 2 agent cases it claims failed: agent-blocked-tool-result',
        '  not claimed: 1 (needs the agent loop capabilities agentStream, durable: 1)',
      ]);
    });

    it('is not told for a run filtered by rules or ids, nor for an implementation that runs no agent cases', async () => {
      const cases = [caseById('agent-busy')];
      const filtered = await runConformance(cases, libraryTarget(), { rules: ['MW-117'] });
      const noAgent = await runConformance(cases, claiming({ kinds: ['chain'] }));
      expect([filtered.agentLoop, noAgent.agentLoop]).toEqual([null, null]);
    });
  });
});
