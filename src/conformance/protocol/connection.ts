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
  diagnostics?(): string;
}

/** A request waiting for its reply. */
interface Pending {
  readonly id: number;
  readonly resolve: (reply: unknown) => void;
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
  let connection: Promise<LineConnection> | undefined;
  // The connection replies are read from; lines of one that was reset are ignored.
  let active: LineConnection | undefined;
  let hello: ProtocolRequest | undefined;
  let pending: Pending | undefined;
  let nextId = 1;

  const listen = async (opened: LineConnection): Promise<void> => {
    try {
      await readReplies(opened);
    } catch (error) {
      if (active === opened) pending?.resolve({ failure: `reading the port's replies failed: ${error instanceof Error ? error.message : String(error)}` });
      return;
    }
    if (active !== opened) return;
    const diagnostics = opened.diagnostics?.();
    pending?.resolve({ failure: `the port closed the connection${diagnostics === undefined || diagnostics === '' ? '' : `: ${diagnostics}`}` });
  };

  const readReplies = async (opened: LineConnection): Promise<void> => {
    for await (const line of opened.lines) {
      if (active !== opened || line.trim() === '') continue;
      let reply: unknown;
      try {
        reply = JSON.parse(line);
      } catch {
        pending?.resolve({ failure: `the port wrote a line that is not JSON: ${line.slice(0, 200)}` });
        continue;
      }
      const { id, ...rest } = (reply ?? {}) as { id?: unknown };
      if (pending !== undefined && id === pending.id) pending.resolve(rest);
      else pending?.resolve({ failure: `the port replied with id ${JSON.stringify(id)} while request ${pending.id} was waiting` });
    }
  };

  const send = async (opened: LineConnection, request: ProtocolRequest): Promise<unknown> => {
    const id = nextId++;
    const reply = new Promise<unknown>((resolve) => {
      pending = { id, resolve };
    });
    opened.write(JSON.stringify({ id, ...request }));
    try {
      return await reply;
    } finally {
      pending = undefined;
    }
  };

  const open = async (): Promise<LineConnection> => {
    const opened = await connect();
    active = opened;
    void listen(opened);
    if (hello !== undefined) await send(opened, hello);
    return opened;
  };

  return {
    async request(request) {
      if (request.op === 'hello') hello = request;
      connection ??= open();
      return send(await connection, request);
    },
    async reset() {
      const current = connection;
      connection = undefined;
      active = undefined;
      pending?.resolve({ failure: 'the connection was reset' });
      await (await current)?.close();
    },
    async close() {
      const current = connection;
      connection = undefined;
      active = undefined;
      await (await current)?.close();
    },
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
    const reply = await target.request(rest as ProtocolRequest);
    connection.write(JSON.stringify({ id, ...(reply as object) }));
  }
}
