/**
 * The port's side of one line: a request to answer, or the failure reply a
 * line gets when it is no request the port can carry out (spec/README.md,
 * "Failures"). Whatever the line holds, reading it never throws.
 *
 * @packageDocumentation
 */
import { describeValue } from '../../src/util/describe-value';
import { isObject } from '../../src/util/is-object';
import { issuesText } from '../runner/target';
import { requestId, requestOfOp, type ProtocolRequest } from './messages';

/** How much of a line a failure reply quotes. */
const QUOTED = 200;

/** A line read: the request and its id, or the failure reply it gets (id -1 when the line is no request at all). */
export type RequestLine = { readonly id: number; readonly request: ProtocolRequest } | { readonly id: number; readonly failure: string };

/**
 * Reads one line as a request: a JSON object whose `id` is an integer from 0
 * and whose other fields are the request of its `op`. The request is the
 * line's own value without its id, unchanged (a `__proto__` key stays an
 * own key): the schemas check it, they do not rebuild it.
 */
export function readRequestLine(line: string): RequestLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { id: -1, failure: `not a JSON request: ${quote(line)}` };
  }
  if (!isObject(value) || Array.isArray(value))
    return { id: -1, failure: `not a request (a JSON object with an id), got ${describeValue(value)}: ${quote(line)}` };
  const { id: given, ...request } = value as { readonly id?: unknown; readonly op?: unknown };
  const id = requestId.safeParse(given);
  if (!id.success)
    return { id: -1, failure: `not a request: its id must be an integer from 0, got ${describeValue(given)}: ${quote(line)}` };
  const { op } = request;
  const schema = typeof op === 'string' ? requestOfOp.get(op) : undefined;
  if (typeof op !== 'string' || schema === undefined) return { id: id.data, failure: `unknown op: ${describeValue(op)}` };
  let checked: ReturnType<typeof schema.safeParse>;
  try {
    checked = schema.safeParse(request);
  } catch (error) {
    // A value nested too deeply for the schema's recursion, say.
    return { id: id.data, failure: `the ${op} request could not be checked: ${errorText(error)}` };
  }
  if (!checked.success) return { id: id.data, failure: `the ${op} request does not match the protocol: ${issuesText(checked.error)}` };
  return { id: id.data, request: request as ProtocolRequest };
}

/** The message of a thrown value, never throwing itself. */
export function errorText(error: unknown): string {
  try {
    if (!(error instanceof Error)) return String(error);
    const message: unknown = error.message;
    return typeof message === 'string' ? message : describeValue(message);
  } catch {
    return describeValue(error);
  }
}

/** The start of a line, for a failure. */
export function quote(line: string): string {
  return line.length > QUOTED ? `${line.slice(0, QUOTED)}…` : line;
}
