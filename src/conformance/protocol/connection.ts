import type { ProtocolRequest } from './messages';
import type { ConformanceTarget } from '../runner/target';

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
    let reply: unknown;
    try {
      reply = JSON.parse(line);
    } catch {
      link.waiting?.resolve({ failure: `the port wrote a line that is not JSON: ${line.slice(0, 200)}` });
      return;
    }
    const { id, ...rest } = (reply ?? {}) as { id?: unknown };
    if (link.waiting === undefined) return;
    link.waiting.resolve(
      id === link.waiting.id
        ? rest
        : { failure: `the port replied with id ${JSON.stringify(id)} while request ${link.waiting.id} was waiting` },
    );
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
 * Answers the protocol's requests with a target, one line at a time, in
 * order: the loop a port's server runs, here with this library behind it
 * (`staged-middleware conformance serve`). A line that is not a request gets
 * a failure reply with id -1. It returns when the connection's lines end.
 */
export async function serveProtocol(target: ConformanceTarget, connection: LineConnection): Promise<void> {
  for await (const line of connection.lines) {
    if (line.trim() === '') continue;
    let request: { id?: unknown } & ProtocolRequest;
    try {
      request = JSON.parse(line) as { id?: unknown } & ProtocolRequest;
    } catch {
      connection.write(JSON.stringify({ id: -1, failure: `not a JSON request: ${line.slice(0, 200)}` }));
      continue;
    }
    const { id, ...rest } = request;
    const reply = await target.request(rest);
    connection.write(JSON.stringify({ id, ...(reply as object) }));
  }
}
