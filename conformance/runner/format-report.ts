import type { CaseOutcome, ConformanceReport, Difference } from './report-types';

/** How a status is marked in the text report. */
const MARKS = { passed: 'pass', failed: 'FAIL', 'not-claimed': 'not claimed' } as const;

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
  if (report.conformance === null) lines.push('conformance: not determined (the run was filtered)');
  else
    lines.push(
      `core conformance (sections 1 to 3): ${report.conformance.core ? 'yes' : 'no'}`,
      `full conformance: ${report.conformance.full ? 'yes' : 'no'}`,
    );
  return `${lines.join('\n')}\n`;
}

function claimsText(report: ConformanceReport): string {
  const { kinds, builtins, scenarios, capabilities } = report.implementation;
  const parts = [`kinds ${kinds.join(', ')}`];
  if (builtins !== undefined) parts.push(`built-ins ${builtins.length === 0 ? 'none' : builtins.join(', ')}`);
  if (scenarios !== undefined) parts.push(`scenarios ${scenarios.length === 0 ? 'none' : scenarios.join(', ')}`);
  if (capabilities !== undefined) parts.push(`agent capabilities ${capabilities.length === 0 ? 'none' : capabilities.join(', ')}`);
  return parts.join('; ');
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
