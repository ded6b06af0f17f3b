/**
 * The runner's side of a `"kind": "agent"` case: one `agent.run` request,
 * then the observation compared with each run's `expect` and the case's.
 */
import type { AgentCase } from '../cases/agent-case';
import type { AgentRunObservation } from '../protocol/agent-observation';
import type { ErrorReport } from '../protocol/error-report';
import { jsonEqual } from './json-equal';
import type { Difference } from './report-types';
import { call, type ConformanceTarget } from './target';

type RunExpectation = NonNullable<AgentCase['runs'][number]['expect']>;

/** The keys of a run's `expect` compared with the observation as they are. */
const RUN_KEYS = [
  'stopReason',
  'interrupts',
  'usage',
  'stoppedBy',
  'eventTypes',
  'invocationState',
  'frozen',
  'middlewareUsage',
  'compressed',
] as const;

/** The keys of a case's `expect` compared with the observation as they are. */
const CASE_KEYS = [
  'snapshot',
  'agentUsage',
  'history',
  'modelState',
  'toolCalls',
  'observations',
  'pendingInterrupts',
  'callerObjectsUnfrozen',
  'explain',
  'spans',
  'journal',
] as const;

/** Runs one agent case against `target` and returns what differed from its expectations. */
export async function runAgentCase(testCase: AgentCase, target: ConformanceTarget, timeoutMs: number): Promise<Difference[]> {
  const { observed } = await call(target, { op: 'agent.run', case: testCase }, timeoutMs);
  const differences: Difference[] = [];
  const compare = (key: string, expected: unknown, seen: unknown): void => {
    if (!jsonEqual(expected, seen)) differences.push({ key, expected, observed: seen });
  };
  testCase.runs.forEach((run, index) => {
    compareRun(`runs[${index}]`, run.expect ?? {}, observed.runs[index], testCase.needs.includes('agentStream'), compare);
  });
  if (observed.runs.length !== testCase.runs.length) compare('runs.length', testCase.runs.length, observed.runs.length);
  const expected = testCase.expect ?? {};
  for (const key of CASE_KEYS) if (expected[key] !== undefined) compare(key, expected[key], observed[key]);
  if (expected.modelCalls !== undefined)
    compare('modelCalls', expected.modelCalls, modelCallsAsExpected(observed.modelCalls, expected.modelCalls));
  if (expected.aiSdkCalls !== undefined)
    compare('aiSdkCalls', expected.aiSdkCalls, modelCallsAsExpected(observed.aiSdkCalls ?? [], expected.aiSdkCalls));
  for (const [name, calls] of Object.entries(expected.childModelCalls ?? {}))
    compare(`childModelCalls.${name}`, calls, modelCallsAsExpected(observed.childModelCalls?.[name] ?? [], calls));
  return differences;
}

/** Compares one run: its error, or that it ended as expected. */
function compareRun(
  label: string,
  expected: RunExpectation,
  seen: AgentRunObservation | undefined,
  endsWithAgentResult: boolean,
  compare: (key: string, expected: unknown, seen: unknown) => void,
): void {
  if (seen === undefined) return;
  if (expected.error !== undefined) {
    compare(`${label}.error`, expected.error, seen.error === undefined ? undefined : errorAsExpected(seen.error, expected.error));
    if (seen.error !== undefined) identity(`${label}.error.identity`, seen.error, expected.error, compare);
    return;
  }
  if (seen.error !== undefined) {
    compare(`${label}.error`, undefined, seen.error);
    return;
  }
  // MW-103: a run that does not reject ends with its agentResult.
  if (endsWithAgentResult) compare(`${label}.lastEventType`, 'agentResult', seen.lastEventType);
  for (const key of RUN_KEYS) if (expected[key] !== undefined) compare(`${label}.${key}`, expected[key], seen[key]);
}

/** The error in the shape of the expectation: the fields it lists, `messageIncludes` when the message contains it (else the whole message). */
function errorAsExpected(error: ErrorReport, expected: NonNullable<RunExpectation['error']>): Record<string, unknown> {
  const projected: Record<string, unknown> = {};
  for (const key of ['code', 'stage', 'phase', 'handler'] as const) if (key in expected) projected[key] = error[key];
  if (expected.messageIncludes !== undefined)
    projected.messageIncludes = error.message.includes(expected.messageIncludes) ? expected.messageIncludes : error.message;
  if (expected.message !== undefined) projected.message = error.message;
  return projected;
}

/** A library error must be genuine; a user error the very object thrown (MW-116). */
function identity(
  key: string,
  error: ErrorReport,
  expected: NonNullable<RunExpectation['error']>,
  compare: (key: string, expected: unknown, seen: unknown) => void,
): void {
  if (expected.message !== undefined)
    compare(
      key,
      'the very object the case threw',
      error.thrownByCase ? 'the very object the case threw' : 'another object with that message',
    );
  else if (expected.code !== undefined || expected.stage !== undefined)
    compare(key, 'a genuine MiddlewareError', error.genuine === true ? 'a genuine MiddlewareError' : 'an error not named MiddlewareError');
}

/** Each model call (or AI SDK call) with only the keys the expectation of that call lists (all keys past the expected calls). */
function modelCallsAsExpected(observed: readonly object[], expected: readonly Record<string, unknown>[]): unknown[] {
  return observed.map((call, index) => {
    const keys = index < expected.length ? Object.keys(expected[index] ?? {}) : Object.keys(call);
    return Object.fromEntries(keys.map((key) => [key, (call as Record<string, unknown>)[key]]));
  });
}
