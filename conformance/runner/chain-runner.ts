/**
 * The runner's side of a `"kind": "chain"` case: it turns the case into the
 * protocol's chain requests, one primitive at a time, and builds the object
 * compared with the case's `expect` from the replies.
 *
 * Order of a case: `chain.begin`; a `chain.key` for each of its keys; the
 * registry operations in order (a key or an operation with `expectError`
 * must fail with that error, recorded as `setup error <JSON>`, anything else
 * must not fail); a `chain.contributions` for each key the case expects
 * contributions of; `chain.describe` when the case expects `describe` or
 * `explain`; `chain.invoke`; the consumer's
 * requests (`afterInvoke` operations before the first pull); `chain.end`.
 */
import type { Json } from '../cases/case-base';
import type { ChainCase } from '../cases/chain-case';
import type { ErrorExpectation, Operation } from '../cases/chain-operations';
import type { ErrorReport } from '../protocol/error-report';
import type { ProtocolOp, ReplyOf, RequestOf } from '../protocol/messages';
import { defined, keyRequest, requestOf, type KeyOperation } from './operation-requests';
import type { Difference } from './report-types';
import { call, type ConformanceTarget } from './target';

/** What the runner observed, keyed like `expect`, and the identity checks that failed. */
export interface ChainObservation {
  /** The observed values, keyed like the case's `expect`. */
  readonly observed: Record<string, unknown>;
  /** Errors that arrived as other objects than the case requires. */
  readonly identity: readonly Difference[];
}

/** An error seen by the runner, with where it arose. */
interface Failure {
  /** Before `invoke()` or from it on. */
  readonly at: 'setup' | 'invoke';
  /** The error the target reported, or what the runner found wrong. */
  readonly error: ErrorReport | string;
}

/** Runs one chain case against `target`. */
export async function runChainCase(testCase: ChainCase, target: ConformanceTarget, timeoutMs: number): Promise<ChainObservation> {
  const trace: string[] = [];
  const send: Send = async (request) => {
    const reply = await call(target, request, timeoutMs);
    trace.push(...((reply as { trace?: string[] }).trace ?? []));
    return reply;
  };
  const expected = testCase.expect;
  const observed: Record<string, unknown> = {};
  const events: Json[] = [];
  const frozenEvents: boolean[] = [];
  let result: unknown = '<no result>';
  let failure: Failure | undefined;
  const usesChild = [...testCase.registry, ...(testCase.consumer.afterInvoke ?? [])].some(
    (operation) => 'scope' in operation && operation.scope === 'child',
  );
  const on = testCase.invokeOn ?? (usesChild ? 'child' : 'parent');

  /** Applies one registry operation (or creates a key); a failure it did not expect stops the case. */
  const apply = async (operation: Operation | KeyOperation, at: Failure['at']): Promise<boolean> => {
    const reply = await send(operation.op === 'key' ? keyRequest(operation) : requestOf(operation));
    const expectError = 'expectError' in operation ? operation.expectError : undefined;
    if (operation.op === 'remove' && (reply as ReplyOf<'chain.remove'>).removed !== operation.expect) {
      failure = {
        at,
        error: `remove returned ${String((reply as ReplyOf<'chain.remove'>).removed)}, the case expects ${String(operation.expect)}`,
      };
      return false;
    }
    const error = (reply as { error?: ErrorReport }).error;
    if (expectError !== undefined) {
      trace.push(error === undefined ? 'setup error none' : `setup error ${JSON.stringify(project(error, expectError))}`);
      return true;
    }
    if (error === undefined) return true;
    failure = { at, error };
    return false;
  };

  const begin = await send({
    op: 'chain.begin',
    case: testCase.id,
    stage: testCase.stage,
    ...defined('otherStages', testCase.otherStages),
    ...defined('signal', testCase.signal),
    ...defined('state', testCase.state),
  });
  if (begin.error !== undefined) failure = { at: 'setup', error: begin.error };
  else if (expected.stageFrozen !== undefined) observed.stageFrozen = begin.stageFrozen;
  const keys = (testCase.keys ?? []).map((key): KeyOperation => ({ op: 'key', ...key }));
  if (
    failure === undefined &&
    (await applyAll(keys, apply, 'setup')) &&
    (await applyAll(testCase.registry, apply, 'setup')) &&
    (await contributions(testCase, on, send, observed))
  ) {
    const described =
      expected.describe !== undefined || expected.explain !== undefined ? await send({ op: 'chain.describe', on }) : undefined;
    if (described?.error !== undefined) failure = { at: 'setup', error: described.error };
    else {
      if (expected.describe !== undefined) {
        // Only the listed keys of each entry are compared.
        observed.describe = (described?.entries ?? []).map((entry, index) =>
          Object.fromEntries(Object.keys(expected.describe?.[index] ?? {}).map((key) => [key, entry[key] ?? null])),
        );
      }
      if (expected.explain !== undefined) observed.explain = described?.explain;
      const consumed = await consume(testCase, on, send, apply, (event) => {
        // An opaque value delivered as the very value the terminal yielded (MW-039) reads as { "$opaque": kind }.
        events.push(event.opaque === undefined ? (event.value as Json) : { $opaque: event.opaque });
        frozenEvents.push(event.frozen === true);
      });
      if (consumed.failure !== undefined) failure = consumed.failure;
      if (consumed.hasResult) result = consumed.result;
    }
  }
  const end = await send({ op: 'chain.end' });

  if (expected.events !== undefined) observed.events = events;
  if (expected.result !== undefined) observed.result = result;
  if (expected.trace !== undefined) observed.trace = trace;
  if (expected.stateWrites !== undefined) observed.stateWrites = end.stateWrites;
  if (expected.stateGets !== undefined) observed.stateGets = end.stateGets;
  if (expected.snapshotFrozen !== undefined) observed.snapshotFrozen = end.snapshotFrozen;
  if (expected.frozenEvents !== undefined) observed.frozenEvents = frozenEvents;
  if (expected.warnings !== undefined) observed.warnings = end.warnings;
  const identity: Difference[] = [];
  if (failure !== undefined) {
    if (expected.error === undefined || typeof failure.error === 'string')
      observed.error = { unexpected: failure.at, error: failure.error };
    else {
      observed.error = { at: failure.at, ...project(failure.error, expected.error) };
      identity.push(...identityProblems(failure.error, expected.error));
    }
  }
  return { observed, identity };
}

/** Reads the contributions the case expects into `observed.contributions`: the fields each expected entry lists (all of an entry past them), or the error. */
async function contributions(testCase: ChainCase, on: 'parent' | 'child', send: Send, observed: Record<string, unknown>): Promise<boolean> {
  const expected = testCase.expect.contributions;
  if (expected === undefined) return true;
  const seen: Record<string, unknown> = {};
  for (const [name, expectedEntries] of Object.entries(expected)) {
    const reply = await send({ op: 'chain.contributions', on, key: name });
    if (reply.error !== undefined)
      seen[name] = { error: project(reply.error, Array.isArray(expectedEntries) ? {} : expectedEntries.error) };
    else {
      const listed = Array.isArray(expectedEntries) ? expectedEntries : [];
      seen[name] = (reply.entries ?? []).map((entry, index) =>
        Object.fromEntries(Object.keys(listed[index] ?? entry).map((field) => [field, entry[field] ?? null])),
      );
    }
  }
  observed.contributions = seen;
  return true;
}

/** Sends one request and collects the trace lines of its reply. */
type Send = <TOp extends ProtocolOp>(request: RequestOf<TOp>) => Promise<ReplyOf<TOp>>;

/** Invokes and consumes as the case's consumer says; the events go to `onEvent`. */
async function consume(
  testCase: ChainCase,
  on: 'parent' | 'child',
  send: Send,
  apply: (operation: Operation, at: Failure['at']) => Promise<boolean>,
  onEvent: (event: ReplyOf<'chain.next'>) => void,
): Promise<{ failure?: Failure; hasResult: boolean; result?: unknown }> {
  const { consumer } = testCase;
  const failed = (reply: { error?: ErrorReport | undefined }): { failure: Failure; hasResult: false } | undefined =>
    reply.error === undefined ? undefined : { failure: { at: 'invoke', error: reply.error }, hasResult: false };
  const invoked = await send({
    op: 'chain.invoke',
    on,
    stageAs: testCase.invokeWith ?? 'stage',
    context: testCase.context,
    terminal: testCase.terminal,
    consumer: consumer.mode === 'run' ? 'run' : 'iterate',
  });
  if (invoked.error !== undefined || consumer.mode === 'run') return failed(invoked) ?? { hasResult: true, result: invoked.result };
  for (const operation of consumer.afterInvoke ?? []) if (!(await apply(operation, 'invoke'))) return { hasResult: false };
  if (consumer.mode === 'return-first') return failed(await send({ op: 'chain.return' })) ?? { hasResult: false };
  if (consumer.mode === 'throw-first') return failed(await send({ op: 'chain.throw' })) ?? { hasResult: false };
  const limit = consumer.mode === 'take' ? (consumer.take ?? 0) : Infinity;
  let count = 0;
  let last: unknown;
  while (count < limit) {
    const pulled = await send({ op: 'chain.next' });
    const failure = failed(pulled);
    if (failure !== undefined) return failure;
    if (pulled.done === true) return count === 0 ? { hasResult: false } : { hasResult: true, result: last };
    onEvent(pulled);
    last = pulled.value;
    count++;
    if (consumer.abortAfter === count) await send({ op: 'chain.abort', reason: 'consumer' });
  }
  if (consumer.mode !== 'take') return { hasResult: false };
  if (consumer.then === 'throw') return failed(await send({ op: 'chain.throw' })) ?? { hasResult: false };
  if (consumer.then === 'dispose') {
    const disposed = await send({ op: 'chain.asyncDispose' });
    if (disposed.error === undefined && 'value' in disposed)
      return {
        failure: { at: 'invoke', error: `[Symbol.asyncDispose]() resolved ${JSON.stringify(disposed.value)}, not undefined` },
        hasResult: false,
      };
    return failed(disposed) ?? { hasResult: false };
  }
  // 'return' and 'break' (for-await's break calls return()).
  return failed(await send({ op: 'chain.return' })) ?? { hasResult: false };
}

/** Applies operations in order until one fails unexpectedly; true when all went as the case says. */
async function applyAll<TOperation extends Operation | KeyOperation>(
  operations: readonly TOperation[],
  apply: (operation: TOperation, at: Failure['at']) => Promise<boolean>,
  at: Failure['at'],
): Promise<boolean> {
  for (const operation of operations) if (!(await apply(operation, at))) return false;
  return true;
}

/** An error as the case states it: the code (or the message of a user error), then the fields the expectation lists, in the order stage, phase, handler, cause. */
function project(error: ErrorReport, expected: ErrorExpectation): Record<string, unknown> {
  const projected: Record<string, unknown> = error.code === undefined ? { message: error.message } : { code: error.code };
  for (const key of ['stage', 'phase', 'handler'] as const) if (key in expected) projected[key] = error[key];
  if ('cause' in expected) projected.cause = error.cause;
  return projected;
}

/** A library error must be genuine (MW-032); a user error must be the very object the case threw (MW-019). */
function identityProblems(error: ErrorReport, expected: ErrorExpectation): Difference[] {
  if (expected.code !== undefined)
    return error.genuine === true
      ? []
      : [{ key: 'error.identity', expected: 'a genuine MiddlewareError', observed: 'an error not named MiddlewareError' }];
  return error.thrownByCase
    ? []
    : [{ key: 'error.identity', expected: 'the very object the case threw', observed: 'another object with that message' }];
}
