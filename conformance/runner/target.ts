import type { z } from 'zod';
import { failureReply, protocolReplies, type ProtocolOp, type ProtocolRequest, type ReplyOf, type RequestOf } from '../protocol/messages';

/**
 * What the runner runs cases against: something that answers the requests
 * of the conformance protocol (spec/README.md, "The protocol"). This library
 * in this process (`libraryTarget`), an agent loop adapter (`agentLoopTarget`)
 * and a port in a child process (`protocolTarget`) are all targets.
 */
export interface ConformanceTarget {
  /** Answers one request with the reply of its op, or `{ failure }` when it cannot carry it out. */
  request(request: ProtocolRequest): Promise<unknown>;
  /** Called after a request got no reply in time, before the next case: a target that can start afresh (a child process) does. */
  reset?(): Promise<void>;
  /** Releases what the target holds (a child process); its creator calls it. */
  close?(): Promise<void>;
}

/** A request the target could not carry out, or whose reply was malformed or late: the case fails with this message. */
export class TargetFailure extends Error {
  override readonly name = 'TargetFailure';
}

/** Sends one request and checks the reply's shape. */
export async function call<TOp extends ProtocolOp>(
  target: ConformanceTarget,
  request: RequestOf<TOp>,
  timeoutMs: number,
): Promise<ReplyOf<TOp>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => {
      resolve('late');
    }, timeoutMs);
  });
  let reply: unknown;
  try {
    reply = await Promise.race([target.request(request), late]);
  } catch (error) {
    throw new TargetFailure(`${request.op} threw: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearTimeout(timer);
  }
  if (reply === 'late') {
    await target.reset?.();
    throw new TargetFailure(`no reply to ${request.op} within ${timeoutMs} ms`);
  }
  const failure = failureReply.omit({ id: true }).safeParse(reply);
  if (failure.success) throw new TargetFailure(`${request.op} failed: ${failure.data.failure}`);
  let checked: z.ZodSafeParseResult<unknown>;
  try {
    checked = (protocolReplies[request.op] as z.ZodType).safeParse(reply);
  } catch (error) {
    // A value nested too deeply for the schema's recursion, say.
    throw new TargetFailure(`the reply to ${request.op} could not be checked: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!checked.success) throw new TargetFailure(`the reply to ${request.op} does not match the protocol: ${issuesText(checked.error)}`);
  // The reply itself, not the schema's copy: the schema leaves out a `__proto__` key, which is data like any other key.
  return reply as ReplyOf<TOp>;
}

/** The first few issues of a zod error, one line each, deepest first for unions. */
export function issuesText(error: z.ZodError): string {
  const lines = error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length === 0 ? '(the value)' : issue.path.join('.')}: ${issue.message}`);
  return lines.join('; ') + (error.issues.length > 3 ? `; and ${error.issues.length - 3} more` : '');
}
