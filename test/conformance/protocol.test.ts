import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { libraryTarget, protocolTarget, runConformance, serveProtocol, type LineConnection } from '../../src/conformance/index';
import { protocolJsonSchema } from '../../src/conformance/protocol/messages';
import { caseFiles, specDirectory, vitestHost } from './case-files';

/** Lines written on one side and read on the other, in memory. */
class Lines implements AsyncIterable<string> {
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
function fakePort(
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

/** A runner's connection to `serveProtocol` answering with this library, in memory, and what the server wrote. */
function servedLibrary(): LineConnection {
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

const hello = { protocol: 1, name: 'fake', kinds: ['chain'] };

describe('protocolTarget and serveProtocol', () => {
  describe('with this library behind the protocol', () => {
    it('pass one case of each kind, as in this process', async () => {
      const cases = ['core-short-circuit', 'reliability-queued-calls', 'agent-busy'].map(
        (id) => caseFiles.find(({ raw }) => raw.id === id)?.raw,
      );
      const target = protocolTarget(servedLibrary);
      const report = await runConformance(cases, target);
      await target.close?.();
      expect(report.cases.map((outcome) => [outcome.id, outcome.status])).toEqual([
        ['core-short-circuit', 'passed'],
        ['reliability-queued-calls', 'passed'],
        ['agent-busy', 'passed'],
      ]);
    });
  });

  describe('protocolTarget', () => {
    it('numbers the requests and hands back each reply without its id', async () => {
      const seen: unknown[] = [];
      const target = protocolTarget(() =>
        fakePort((request, write) => {
          seen.push(request);
          write(JSON.stringify({ id: request.id, ...hello }));
        }),
      );
      expect([await target.request({ op: 'hello', protocol: 1 }), await target.request({ op: 'chain.end' }), seen]).toEqual([
        hello,
        hello,
        [
          { id: 1, op: 'hello', protocol: 1 },
          { id: 2, op: 'chain.end' },
        ],
      ]);
    });

    it.each([
      ['a line that is not JSON', 'oops', { failure: 'the port wrote a line that is not JSON: oops' }],
      ['a reply with another id', JSON.stringify({ id: 9 }), { failure: 'the port replied with id 9 while request 1 was waiting' }],
    ])('fails the waiting request on %s', async (_name, line, reply) => {
      const target = protocolTarget(() =>
        fakePort((_request, write) => {
          write(line);
        }),
      );
      expect(await target.request({ op: 'hello', protocol: 1 })).toEqual(reply);
    });

    it('skips blank lines', async () => {
      const target = protocolTarget(() =>
        fakePort((request, write) => {
          write('');
          write(JSON.stringify({ id: request.id, ...hello }));
        }),
      );
      expect(await target.request({ op: 'hello', protocol: 1 })).toEqual(hello);
    });

    it('fails the waiting request when the port closes, with what the port left', async () => {
      const port = fakePort(
        () => void port.close(),
        () => 'the command exited with code 3',
      );
      const target = protocolTarget(() => port);
      expect(await target.request({ op: 'hello', protocol: 1 })).toEqual({
        failure: 'the port closed the connection: the command exited with code 3',
      });
    });

    it('fails the waiting request when reading the replies fails', async () => {
      const broken: LineConnection = {
        lines: { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('pipe broke')) }) },
        write: () => undefined,
        close: async () => undefined,
      };
      const target = protocolTarget(() => broken);
      expect(await target.request({ op: 'hello', protocol: 1 })).toEqual({ failure: "reading the port's replies failed: pipe broke" });
    });

    it('after a reset, connects again and says hello first', async () => {
      const connections: (LineConnection & { closed: boolean })[] = [];
      const requests: unknown[][] = [];
      const target = protocolTarget(() => {
        const seen: unknown[] = [];
        requests.push(seen);
        const port = fakePort((request, write) => {
          seen.push(request.op);
          if (request.op !== 'chain.next' || connections.length > 1) write(JSON.stringify({ id: request.id, ...hello }));
        });
        connections.push(port);
        return port;
      });
      await target.request({ op: 'hello', protocol: 1 });
      const hanging = target.request({ op: 'chain.next' });
      await target.reset?.();
      expect([
        await hanging,
        await target.request({ op: 'chain.end' }),
        requests,
        connections.map((connection) => connection.closed),
      ]).toEqual([
        { failure: 'the connection was reset' },
        hello,
        [
          ['hello', 'chain.next'],
          ['hello', 'chain.end'],
        ],
        [true, false],
      ]);
      await target.close?.();
      expect(connections.map((connection) => connection.closed)).toEqual([true, true]);
    });
  });

  describe('serveProtocol', () => {
    it('answers a line that is not a request with a failure of id -1, and goes on', async () => {
      const written: unknown[] = [];
      const lines = new Lines();
      const served = serveProtocol(libraryTarget(), {
        lines,
        write: (line) => written.push(JSON.parse(line)),
        close: async () => undefined,
      });
      lines.push('not json');
      lines.push('');
      lines.push(JSON.stringify({ id: 7, op: 'chain.next' }));
      lines.end();
      await served;
      expect(written).toEqual([
        { id: -1, failure: 'not a JSON request: not json' },
        { id: 7, failure: 'chain.next came before chain.begin' },
      ]);
    });
  });

  describe('protocol.schema.json', () => {
    it('matches the zod schemas of the messages', () => {
      const committed = JSON.parse(readFileSync(join(specDirectory, 'protocol.schema.json'), 'utf8')) as unknown;
      // Regenerate with: npx tsx test/conformance/export-schema.ts
      expect(committed).toEqual(protocolJsonSchema());
    });
  });
});
