/**
 * What a run shows beyond its cases: core and full conformance (the
 * *Conformance* section of `SPEC.md`) for a run of every case, with the
 * cases that keep them from holding, and how an agent loop did for a run of
 * every agent case (an adapter's run, say).
 */
import type { AgentLoopVerdict, CaseOutcome, ConformanceReport } from './report-types';

/** The filters of a run, as the report keeps them. */
type Filters = ConformanceReport['filters'];

/** A chain or reliability case naming only rules of sections 1 to 3 (MW-001 – MW-079): what core conformance needs. */
function isCore(outcome: CaseOutcome): boolean {
  return (outcome.kind === 'chain' || outcome.kind === 'reliability') && outcome.rules.every((rule) => Number(rule.slice(3)) < 80);
}

/** The ids of the cases that did not pass, in order. */
function notPassed(outcomes: readonly CaseOutcome[]): string[] {
  return outcomes.filter((outcome) => outcome.status !== 'passed').map((outcome) => outcome.id);
}

/** Core and full conformance with what blocks each, or null when filters left cases out. */
export function conformanceOf(outcomes: readonly CaseOutcome[], filters: Filters): Pick<ConformanceReport, 'conformance' | 'blockedBy'> {
  if (Object.keys(filters).length > 0) return { conformance: null, blockedBy: null };
  const core = notPassed(outcomes.filter(isCore));
  const full = notPassed(outcomes);
  return { conformance: { core: core.length === 0, full: full.length === 0 }, blockedBy: { core, full } };
}

/**
 * How the agent loop did, when the implementation runs agent cases and every
 * agent case was selected (no rule or case filter, and agent cases not filtered out).
 */
export function agentLoopOf(outcomes: readonly CaseOutcome[], filters: Filters, runsAgentCases: boolean): AgentLoopVerdict | null {
  if (!runsAgentCases || filters.rules !== undefined || filters.cases !== undefined || filters.kinds?.includes('agent') === false)
    return null;
  const agent = outcomes.filter((outcome) => outcome.kind === 'agent');
  const failed = agent.filter((outcome) => outcome.status === 'failed').map((outcome) => outcome.id);
  const notClaimed = agent.filter((outcome) => outcome.status === 'not-claimed').map((outcome) => outcome.id);
  return { passed: failed.length === 0, cases: agent.length, failed, notClaimed };
}
