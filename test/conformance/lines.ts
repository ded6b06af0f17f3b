/**
 * Line connections in memory, for the protocol's tests: a queue of lines one
 * side writes and the other reads, a fake port answering the runner, and a
 * server answering with this library.
 */
import { libraryTarget, serveProtocol, type ConformanceTarget, type LineConnection } from '../../conformance/index';
import { vitestHost } from './case-files';

/** Lines written on one side and read on the other, in memory. */
export class Lines implements AsyncIterable<string> {
  private readonly queued: string[] = [];
  private waiting: ((result: IteratorResult<string>) => void) | undefined;
  private ended = false;

  push(line: string): void {
    if (this.waiting === undefined) this.queued.push(line);
    else {
      this.waiting({ value: line, done: false });
      this.waiting = undefined;
    }
  }

  end(): void {
    this.ended = true;
    this.waiting?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<string> {
    return {
      next: () => {
        const line = this.queued.shift();
        if (line !== undefined) return Promise.resolve({ value: line, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
    };
  }
}

/** A runner's connection to a port that answers each request line with `answer`. */
export function fakePort(
  answer: (request: Record<string, unknown>, write: (line: string) => void) => void,
  diagnostics?: () => string,
): LineConnection & { closed: boolean } {
  const fromPort = new Lines();
  const connection = {
    closed: false,
    lines: fromPort,
    write: (line: string) => {
      answer(JSON.parse(line) as Record<string, unknown>, (reply) => {
        fromPort.push(reply);
      });
    },
    close: async () => {
      connection.closed = true;
      fromPort.end();
    },
    ...(diagnostics === undefined ? {} : { diagnostics }),
  };
  return connection;
}

/** A runner's connection to `serveProtocol` answering with this library, in memory. */
export function servedLibrary(): LineConnection {
  const toServer = new Lines();
  const toRunner = new Lines();
  void serveProtocol(libraryTarget({ host: vitestHost }), {
    lines: toServer,
    write: (line) => {
      toRunner.push(line);
    },
    close: async () => undefined,
  }).then(() => {
    toRunner.end();
  });
  return {
    lines: toRunner,
    write: (line) => {
      toServer.push(line);
    },
    close: async () => {
      toServer.end();
    },
  };
}

/** Every line `serveProtocol` writes for `lines` with `target` behind it, once it has returned at their end. */
export async function served(target: ConformanceTarget, lines: readonly string[]): Promise<string[]> {
  const written: string[] = [];
  await serveProtocol(target, {
    lines: (async function* () {
      yield* lines;
    })(),
    write: (line) => written.push(line),
    close: async () => undefined,
  });
  return written;
}
