import { describeValue } from '../../src/util/describe-value';
import { isObject } from '../../src/util/is-object';
import type { ConformanceTarget } from '../runner/target';
import type { ProtocolRequest } from './messages';
import { errorText, quote, readRequestLine } from './request-line';

/**
 * Newline-delimited text both ways: what the runner writes to a port and
 * reads back. The command line makes one from a child process's stdin and
 * stdout; a test can make one in memory.
 */
export interface LineConnection {
  /** Writes one line (the newline is added). */
  write(line: string): void;
  /** The lines the other side writes, in order; it ends when the other side closes. */
  readonly lines: AsyncIterable<string>;
  /** Closes the connection. */
  close(): Promise<void>;
  /** What the other side left for people when it ended (an exit code, the end of its stderr), for the report. */
  diagnostics?(): string | Promise<string>;
}

/** One connection and the request waiting on it. */
interface Link {
  readonly connection: LineConnection;
  /** Resolves the waiting request, if any. */
  waiting?: { readonly id: number; readonly resolve: (reply: unknown) => void } | undefined;
  /** Why the connection can carry no more replies, once it cannot. */
  ended?: string | undefined;
}

/**
 * A port reached over the protocol: each request becomes one JSON line with
 * an `id`, and the line the port writes back with that id is the reply.
 * `connect` is called for the first request and again after `reset()`
 * (a request that got no reply in time), and a new connection gets the
 * first `hello` again, so a port starts each connection with `hello`.
 *
 * @example
 * ```ts
 * const target = protocolTarget(() => myChildProcessConnection('python3 -m my_port'));
 * const report = await runConformance(cases, target);
 * await target.close?.();
 * ```
 */
export function protocolTarget(connect: () => LineConnection | Promise<LineConnection>): ConformanceTarget {
  let current: Promise<Link> | undefined;
  let hello: ProtocolRequest | undefined;
  let nextId = 1;

  const end = (link: Link, reason: string): void => {
    link.ended ??= reason;
    link.waiting?.resolve({ failure: link.ended });
  };

  const listen = async (link: Link): Promise<void> => {
    try {
      for await (const line of link.connection.lines) if (line.trim() !== '') receive(link, line);
    } catch (error) {
      end(link, `reading the port's replies failed: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const diagnostics = await link.connection.diagnostics?.();
    end(link, `the port closed the connection${diagnostics === undefined || diagnostics === '' ? '' : `: ${diagnostics}`}`);
  };

  const receive = (link: Link, line: string): void => {
    if (link.waiting !== undefined) link.waiting.resolve(readReplyLine(line, link.waiting.id));
  };

  const send = async (link: Link, request: ProtocolRequest): Promise<unknown> => {
    if (link.ended !== undefined) return { failure: link.ended };
    const id = nextId++;
    const reply = new Promise<unknown>((resolve) => {
      link.waiting = { id, resolve };
    });
    link.connection.write(JSON.stringify({ id, ...request }));
    try {
      return await reply;
    } finally {
      link.waiting = undefined;
    }
  };

  const open = async (): Promise<Link> => {
    const link: Link = { connection: await connect() };
    void listen(link);
    // A new connection after a reset: the port learns again who it talks to.
    if (hello !== undefined) await send(link, hello);
    return link;
  };

  const drop = async (reason: string): Promise<void> => {
    const link = await current;
    current = undefined;
    if (link === undefined) return;
    end(link, reason);
    await link.connection.close();
  };

  return {
    async request(request) {
      current ??= open();
      const reply = await send(await current, request);
      if (request.op === 'hello') hello = request;
      return reply;
    },
    reset: () => drop('the connection was reset'),
    close: () => drop('the connection was closed'),
  };
}

/**
 * The reply a line of the port gives the request waiting with `waiting`:
 * the line's object without its id, unchanged, or a failure saying what is
 * wrong with the line. The runner checks the reply against its op's schema.
 */
function readReplyLine(line: string, waiting: number): unknown {
  let reply: unknown;
  try {
    reply = JSON.parse(line);
  } catch {
    return { failure: `the port wrote a line that is not JSON: ${quote(line)}` };
  }
  if (!isObject(reply) || Array.isArray(reply))
    return { failure: `the port wrote a line that is not a JSON object, ${describeValue(reply)}: ${quote(line)}` };
  const { id, ...rest } = reply as { readonly id?: unknown; readonly failure?: unknown };
  if (id === waiting) return rest;
  // The port could not read the request as one: its failure says why.
  if (id === -1 && typeof rest.failure === 'string')
    return { failure: `the port could not read request ${waiting} as a request: ${rest.failure}` };
  return { failure: `the port replied with id ${describeId(id)} while request ${waiting} was waiting` };
}

/** An id as a failure shows it: JSON for a number, string or boolean, else its description (`null` for null). */
function describeId(id: unknown): string {
  return typeof id === 'number' || typeof id === 'string' || typeof id === 'boolean' ? JSON.stringify(id) : describeValue(id);
}

/**
 * Answers the protocol's requests with a target, one line at a time, in
 * order: the loop a port's server runs, here with this library behind it
 * (`staged-middleware conformance serve`). Every line but a blank one gets
 * exactly one reply line, and no line ends the loop: a line that is no
 * request (not JSON, not a JSON object, no `id` that is an integer from 0)
 * gets the failure reply with id -1; a request of an unknown op or with
 * fields its op does not have, and a request the target throws for or
 * answers with something that is no JSON object, get the failure reply with
 * its id. It returns when the connection's lines end.
 */
export async function serveProtocol(target: ConformanceTarget, connection: LineConnection): Promise<void> {
  for await (const line of connection.lines) {
    if (line.trim() === '') continue;
    connection.write(await answer(target, line));
  }
}

/** The reply line to one line. */
async function answer(target: ConformanceTarget, line: string): Promise<string> {
  const read = readRequestLine(line);
  if ('failure' in read) return JSON.stringify(read);
  let reply: unknown;
  try {
    reply = await target.request(read.request);
  } catch (error) {
    return JSON.stringify({ id: read.id, failure: `the request failed: ${errorText(error)}` });
  }
  try {
    if (!isObject(reply) || Array.isArray(reply))
      return JSON.stringify({ id: read.id, failure: `the reply is not a JSON object: ${describeValue(reply)}` });
    // The request's id, whatever id the target's reply may carry.
    const { id: _ignored, ...fields } = reply as { readonly id?: unknown };
    return JSON.stringify({ id: read.id, ...fields });
  } catch (error) {
    // A BigInt, a cycle, a throwing getter or a revoked proxy in the target's reply.
    return JSON.stringify({ id: read.id, failure: `the reply cannot be written as JSON: ${errorText(error)}` });
  }
}
