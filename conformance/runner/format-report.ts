import type { BuiltinClaim } from '../protocol/messages';
import type { AgentLoopVerdict, CaseOutcome, ConformanceReport, Difference } from './report-types';

/** How a status is marked in the text report. */
const MARKS = { passed: 'pass', failed: 'FAIL', 'not-claimed': 'not claimed' } as const;

/** How many case ids a line names before it says how many more there are. */
const NAMED = 10;

/**
 * The report as text for people: the implementation and its claims, one line
 * per case (with what differed under a failed one), the rules that failed or
 * were not fully claimed, and the counts and conformance at the end.
 */
export function formatReport(report: ConformanceReport): string {
  const { implementation: claims } = report;
  const lines = [`conformance of ${claims.name} (protocol ${claims.protocol})`, `  claims: ${claimsText(report)}`];
  if (Object.keys(report.filters).length > 0) lines.push(`  filters: ${JSON.stringify(report.filters)}`);
  for (const kind of ['chain', 'reliability', 'agent', 'unknown']) {
    const outcomes = report.cases.filter((outcome) => outcome.kind === kind);
    if (outcomes.length === 0) continue;
    lines.push('', `${kind} cases`);
    for (const outcome of outcomes) lines.push(...caseLines(outcome));
  }
  const failedRules = report.rules.filter((rule) => rule.status === 'failed').map((rule) => rule.rule);
  const unclaimedRules = report.rules.filter((rule) => rule.status === 'not-claimed').map((rule) => rule.rule);
  const { passed, failed, notClaimed } = report.summary;
  lines.push(
    '',
    `rules: ${report.rules.length - failedRules.length - unclaimedRules.length} passed, ${failedRules.length} failed${listed(failedRules)}, ${unclaimedRules.length} not fully claimed${listed(unclaimedRules)}`,
    `cases: ${passed} passed, ${failed} failed, ${notClaimed} not claimed`,
  );
  if (report.conformance === null) lines.push(notDetermined(report));
  else
    lines.push(
      `core conformance (sections 1 to 3): ${verdict(report.conformance.core, report, report.blockedBy?.core ?? [])}`,
      `full conformance: ${verdict(report.conformance.full, report, report.blockedBy?.full ?? [])}`,
    );
  if (report.agentLoop !== null && report.agentLoop.cases > 0) lines.push(...agentLoopLines(report.agentLoop, report.cases));
  return `${lines.join('\n')}\n`;
}

/** Why conformance was not determined: the filters, or only some kinds having run. */
function notDetermined(report: ConformanceReport): string {
  const { kinds, rules, cases } = report.filters;
  if (rules === undefined && cases === undefined && kinds !== undefined)
    return `core and full conformance: not determined (only the ${kinds.join(' and ')} cases ran)`;
  return 'conformance: not determined (the run was filtered)';
}

/** `yes`, or `no` and the cases that block it, each with its status. */
function verdict(holds: boolean, report: ConformanceReport, blocking: readonly string[]): string {
  if (holds) return 'yes';
  const status = new Map(report.cases.map((outcome) => [outcome.id, MARKS[outcome.status]]));
  return `no, blocked by ${blocking.length} case${blocking.length === 1 ? '' : 's'}: ${named(blocking.map((id) => `${id} (${status.get(id) ?? '?'})`))}`;
}

/** The agent loop's verdict: whether every agent case it claims passed, and what the others need. */
function agentLoopLines(loop: AgentLoopVerdict, cases: readonly CaseOutcome[]): string[] {
  const claimed = loop.cases - loop.notClaimed.length;
  const head = loop.passed
    ? `agent loop: every agent case it claims passed (${claimed} of ${loop.cases} claimed)`
    : `agent loop: ${loop.failed.length} of the ${claimed} agent cases it claims failed: ${named(loop.failed)}`;
  if (loop.notClaimed.length === 0) return [head];
  const reasons = new Map<string, number>();
  for (const outcome of cases)
    if (outcome.kind === 'agent' && outcome.status === 'not-claimed')
      reasons.set(outcome.reason ?? '?', (reasons.get(outcome.reason ?? '?') ?? 0) + 1);
  const byReason = [...reasons].sort((a, b) => b[1] - a[1]).map(([reason, count]) => `${reason}: ${count}`);
  return [head, `  not claimed: ${loop.notClaimed.length} (${byReason.join('; ')})`];
}

/** The first ids, then how many more. */
function named(ids: readonly string[]): string {
  const shown = ids.slice(0, NAMED).join(', ');
  return ids.length > NAMED ? `${shown} and ${ids.length - NAMED} more` : shown;
}

function claimsText(report: ConformanceReport): string {
  const { kinds, builtins, scenarios, capabilities } = report.implementation;
  const parts = [`kinds ${kinds.join(', ')}`];
  if (builtins !== undefined) parts.push(`built-ins ${builtins.length === 0 ? 'none' : builtins.map(builtinText).join(', ')}`);
  if (scenarios !== undefined) parts.push(`scenarios ${scenarios.length === 0 ? 'none' : scenarios.join(', ')}`);
  if (capabilities !== undefined) parts.push(`agent capabilities ${capabilities.length === 0 ? 'none' : capabilities.join(', ')}`);
  return parts.join('; ');
}

/** A built-in claimed whole, or the part claimed: `cache (options key, ttlMs; cases middleware-cache-*)`. */
function builtinText(claim: string | BuiltinClaim): string {
  if (typeof claim === 'string') return claim;
  const parts = [
    ...(claim.options === undefined ? [] : [`options ${claim.options.join(', ')}`]),
    ...(claim.cases === undefined ? [] : [`cases ${claim.cases.join(', ')}`]),
  ];
  return `${claim.name} (${parts.length === 0 ? 'part' : parts.join('; ')})`;
}

function caseLines(outcome: CaseOutcome): string[] {
  const head = `  ${MARKS[outcome.status].padEnd(11)} ${outcome.id} (${outcome.rules.join(', ')})${outcome.reason === undefined ? '' : `: ${outcome.reason}`}`;
  return [head, ...(outcome.differences ?? []).flatMap(differenceLines)];
}

function differenceLines(difference: Difference): string[] {
  return [`      ${difference.key}`, `        expected ${shown(difference.expected)}`, `        observed ${shown(difference.observed)}`];
}

/** A value as JSON, `(absent)` for undefined. */
function shown(value: unknown): string {
  return value === undefined ? '(absent)' : JSON.stringify(value);
}

function listed(rules: readonly string[]): string {
  return rules.length === 0 ? '' : ` (${rules.join(', ')})`;
}
