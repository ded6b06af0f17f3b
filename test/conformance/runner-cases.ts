/**
 * The cases and targets the runner's tests share: committed cases by id, a
 * chain case of a test's own, and this library's target with one answer
 * changed.
 */
import { libraryTarget, type Claims, type ConformanceTarget, type ProtocolRequest } from '../../conformance/index';
import { caseFiles } from './case-files';

/** The case file with this id. */
export function caseById(id: string): Record<string, unknown> {
  const found = caseFiles.find(({ raw }) => raw.id === id);
  if (found === undefined) throw new Error(`no case ${id}`);
  return structuredClone(found.raw);
}

/** A chain case of its own, for what no committed case shows. */
export function chainCase(fields: Record<string, unknown>): Record<string, unknown> {
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
export function claiming(changes: Partial<Claims>, inner: ConformanceTarget = libraryTarget()): ConformanceTarget {
  return {
    request: async (request) =>
      request.op === 'hello' ? { ...((await inner.request(request)) as object), ...changes } : inner.request(request),
  };
}

/** This library, except that one op is answered by `answer`. */
export function answeringOp(
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
