import { agentCase } from '../cases/agent-case';
import { caseBase } from '../cases/case-base';
import { ChainCaseSchema } from '../cases/chain-case';
import { ReliabilityCaseSchema } from '../cases/reliability-case';
import { PROTOCOL_VERSION, type CaseKind, type Claims } from '../protocol/messages';
import { runAgentCase } from './agent-runner';
import { runChainCase } from './chain-runner';
import { matchesPattern, unclaimed, type ParsedCase } from './claims';
import { jsonEqual } from './json-equal';
import type { CaseOutcome, ConformanceReport, Difference, RuleOutcome } from './report-types';
import { call, TargetFailure, type ConformanceTarget } from './target';
import { agentLoopOf, conformanceOf } from './verdicts';

/** Which cases a run selects, and how long it waits. */
export interface RunOptions {
  /** Only the cases naming at least one of these rules. */
  readonly rules?: readonly string[] | undefined;
  /** Only the cases of these kinds. */
  readonly kinds?: readonly CaseKind[] | undefined;
  /** Only the cases with these ids (`*` matches any text: `core-abort-*`). */
  readonly cases?: readonly string[] | undefined;
  /** How long one request may take, in ms (default 10,000). */
  readonly timeoutMs?: number | undefined;
  /** Called with each outcome as soon as it is known (for progress). */
  readonly onCase?: ((outcome: CaseOutcome) => void) | undefined;
}

/**
 * Runs the conformance cases against a target: asks it what it claims,
 * then runs every selected case it claims and reports every one it does not
 * as not claimed, never as passed.
 *
 * @param cases The case files' contents, parsed from JSON (in the order to run them).
 * @throws Error when the target does not answer `hello` or speaks another protocol version.
 * @example
 * ```ts
 * const report = await runConformance(cases, libraryTarget());
 * console.log(formatReport(report));
 * ```
 */
export async function runConformance(
  cases: readonly unknown[],
  target: ConformanceTarget,
  options: RunOptions = {},
): Promise<ConformanceReport> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  let claims: Claims;
  try {
    claims = await call(target, { op: 'hello', protocol: PROTOCOL_VERSION }, timeoutMs);
  } catch (error) {
    throw new Error(`The implementation did not answer hello: ${(error as Error).message}`, { cause: error });
  }
  if (claims.protocol !== PROTOCOL_VERSION)
    throw new Error(`The implementation speaks protocol version ${claims.protocol}; this runner speaks version ${PROTOCOL_VERSION}.`);
  const outcomes: CaseOutcome[] = [];
  for (const raw of cases) {
    const base = caseBase.safeParse(raw);
    const id = base.success ? base.data.id : String((raw as { id?: unknown } | null)?.id);
    if (base.success && !selected(base.data, options)) continue;
    const outcome = base.success
      ? await runOne(raw, base.data, target, claims, timeoutMs)
      : { id, kind: 'unknown', rules: [], status: 'failed' as const, reason: `not a case: ${base.error.message}` };
    outcomes.push(outcome);
    options.onCase?.(outcome);
  }
  const filters = {
    ...(options.rules === undefined ? {} : { rules: options.rules }),
    ...(options.kinds === undefined ? {} : { kinds: options.kinds }),
    ...(options.cases === undefined ? {} : { cases: options.cases }),
  };
  const count = (status: CaseOutcome['status']): number => outcomes.filter((outcome) => outcome.status === status).length;
  return {
    implementation: claims,
    filters,
    cases: outcomes,
    rules: ruleOutcomes(outcomes),
    summary: { passed: count('passed'), failed: count('failed'), notClaimed: count('not-claimed') },
    ...conformanceOf(outcomes, filters),
    agentLoop: agentLoopOf(outcomes, filters, claims.kinds.includes('agent')),
  };
}

/** Whether the filters select a case. */
function selected(testCase: { id: string; kind: string; rules: string[] }, options: RunOptions): boolean {
  if (options.kinds !== undefined && !options.kinds.includes(testCase.kind as CaseKind)) return false;
  if (options.rules !== undefined && !testCase.rules.some((rule) => options.rules?.includes(rule))) return false;
  return options.cases === undefined || options.cases.some((pattern) => matchesPattern(pattern, testCase.id));
}

/** Parses, checks the claims for, and runs one case. */
async function runOne(
  raw: unknown,
  base: { id: string; kind: string; rules: string[] },
  target: ConformanceTarget,
  claims: Claims,
  timeoutMs: number,
): Promise<CaseOutcome> {
  const outcome = (status: CaseOutcome['status'], details: { reason?: string; differences?: readonly Difference[] } = {}): CaseOutcome => ({
    id: base.id,
    kind: base.kind,
    rules: base.rules,
    status,
    ...details,
  });
  const parsed = parse(raw, base.kind);
  if (typeof parsed === 'string') return outcome('failed', { reason: parsed });
  const missing = unclaimed(parsed, claims);
  if (missing !== undefined) return outcome('not-claimed', { reason: missing });
  try {
    const differences = await run(parsed, target, timeoutMs);
    return differences.length === 0 ? outcome('passed') : outcome('failed', { differences });
  } catch (error) {
    if (error instanceof TargetFailure) return outcome('failed', { reason: error.message });
    throw error;
  }
}

/** The case parsed by the schema of its kind, or why it does not fit. */
function parse(raw: unknown, kind: string): ParsedCase | string {
  const schema =
    kind === 'chain' ? ChainCaseSchema : kind === 'reliability' ? ReliabilityCaseSchema : kind === 'agent' ? agentCase : undefined;
  if (schema === undefined) return `unknown kind "${kind}"`;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return `the case does not match the ${kind} case format: ${parsed.error.message}`;
  return { kind, value: parsed.data } as ParsedCase;
}

/** Runs a claimed case and returns what differed. */
async function run(testCase: ParsedCase, target: ConformanceTarget, timeoutMs: number): Promise<Difference[]> {
  if (testCase.kind === 'agent') return runAgentCase(testCase.value, target, timeoutMs);
  if (testCase.kind === 'chain') {
    const { observed, identity } = await runChainCase(testCase.value, target, timeoutMs);
    return [...differencesOf(testCase.value.expect, observed), ...identity];
  }
  const { observed } = await call(target, { op: 'reliability.run', case: testCase.value }, timeoutMs);
  return differencesOf(testCase.value.expect, observed as Record<string, unknown>);
}

/** The keys of `expected` and `observed` whose values differ. */
function differencesOf(expected: Record<string, unknown>, observed: Record<string, unknown> | null): Difference[] {
  if (typeof observed !== 'object' || observed === null || Array.isArray(observed)) return [{ key: '(observation)', expected, observed }];
  const keys = [...new Set([...Object.keys(expected), ...Object.keys(observed)])];
  return keys
    .filter((key) => !jsonEqual(expected[key], observed[key]))
    .map((key) => ({ key, expected: expected[key], observed: observed[key] }));
}

/** Per rule, how the cases naming it went. */
function ruleOutcomes(outcomes: readonly CaseOutcome[]): RuleOutcome[] {
  const rules = [...new Set(outcomes.flatMap((outcome) => outcome.rules))].sort();
  return rules.map((rule) => {
    const naming = outcomes.filter((outcome) => outcome.rules.includes(rule));
    const passed = naming.filter((outcome) => outcome.status === 'passed').length;
    const failed = naming.filter((outcome) => outcome.status === 'failed').length;
    const notClaimed = naming.length - passed - failed;
    return { rule, status: failed > 0 ? 'failed' : notClaimed > 0 ? 'not-claimed' : 'passed', passed, failed, notClaimed };
  });
}
