import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { protocolTarget, runConformance, type LineConnection } from '../../conformance/index';
import { protocolJsonSchema } from '../../conformance/protocol/protocol-schema';
import { call, TargetFailure } from '../../conformance/runner/target';
import { caseFiles, specDirectory } from './case-files';
import { fakePort, servedLibrary } from './lines';

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
      ['a reply without an id', '{"protocol":1}', { failure: 'the port replied with id undefined while request 1 was waiting' }],
      ['a reply whose id is a string', '{"id":"1"}', { failure: 'the port replied with id "1" while request 1 was waiting' }],
      ['a reply whose id is a boolean', '{"id":true}', { failure: 'the port replied with id true while request 1 was waiting' }],
      ['a reply whose id is null', '{"id":null}', { failure: 'the port replied with id null while request 1 was waiting' }],
      [
        'a reply whose id is an object',
        '{"id":{"n":1}}',
        { failure: 'the port replied with id a plain object while request 1 was waiting' },
      ],
      [
        'a failure reply with another id',
        '{"id":9,"failure":"busy"}',
        { failure: 'the port replied with id 9 while request 1 was waiting' },
      ],
      ['null', 'null', { failure: 'the port wrote a line that is not a JSON object, null: null' }],
      ['an array', '[{"id":1}]', { failure: 'the port wrote a line that is not a JSON object, an array of length 1: [{"id":1}]' }],
      ['a number', '1', { failure: 'the port wrote a line that is not a JSON object, number 1: 1' }],
      [
        'the failure reply of id -1',
        '{"id":-1,"failure":"not a JSON request: {"}',
        { failure: 'the port could not read request 1 as a request: not a JSON request: {' },
      ],
      ['a reply of id -1 without a failure', '{"id":-1}', { failure: 'the port replied with id -1 while request 1 was waiting' }],
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
          write(' \t ');
          write(JSON.stringify({ id: request.id, ...hello }));
        }),
      );
      expect(await target.request({ op: 'hello', protocol: 1 })).toEqual(hello);
    });

    it.each([
      ['what the port left', () => 'the command exited with code 3', 'the port closed the connection: the command exited with code 3'],
      ['nothing, when it left an empty text', () => '', 'the port closed the connection'],
      ['nothing, when the connection has no diagnostics', undefined, 'the port closed the connection'],
    ])('fails the waiting request when the port closes, with %s', async (_name, diagnostics, failure) => {
      const port = fakePort(() => void port.close(), diagnostics);
      const target = protocolTarget(() => port);
      expect(await target.request({ op: 'hello', protocol: 1 })).toEqual({ failure });
    });

    it('ignores a line the port writes while no request waits', async () => {
      let stray: (line: string) => void = () => undefined;
      const target = protocolTarget(() =>
        fakePort((request, write) => {
          stray = write;
          write(JSON.stringify({ id: request.id, ...hello }));
        }),
      );
      const first = await target.request({ op: 'hello', protocol: 1 });
      stray('{"id":7,"unasked":true}');
      await new Promise((resolve) => setImmediate(resolve));
      expect([first, await target.request({ op: 'chain.end' })]).toEqual([hello, hello]);
    });

    it('does nothing on a reset or a close before the first request, connecting to no port', async () => {
      let connections = 0;
      const target = protocolTarget(() => {
        connections += 1;
        return fakePort(() => undefined);
      });
      expect([await target.reset?.(), await target.close?.(), connections]).toEqual([undefined, undefined, 0]);
    });

    it('fails a request still waiting when the target is closed, and closes the connection', async () => {
      const port = fakePort(() => undefined);
      const target = protocolTarget(() => port);
      const hanging = target.request({ op: 'chain.next' });
      await target.close?.();
      expect([await hanging, port.closed]).toEqual([{ failure: 'the connection was closed' }, true]);
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

  describe('call', () => {
    it('hands back a reply the protocol accepts as the port wrote it, a __proto__ key kept as an own key', async () => {
      const reply = '{"done":false,"value":{"__proto__":{"isAdmin":true},"q":1},"frozen":true}';
      const target = protocolTarget(() =>
        fakePort((request, write) => {
          write(`{"id":${String(request.id)},${reply.slice(1)}`);
        }),
      );
      const received = await call(target, { op: 'chain.next' }, 10_000);
      expect({
        received: JSON.stringify(received),
        prototype: Object.getPrototypeOf(received.value) === Object.prototype,
        inherited: (received.value as { readonly isAdmin?: unknown }).isAdmin,
      }).toEqual({ received: reply, prototype: true, inherited: undefined });
    });
  });

  describe('call, with a reply nested too deeply to check', () => {
    it('fails the request with a TargetFailure saying so', async () => {
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      const target = protocolTarget(() =>
        fakePort((request, write) => {
          write(`{"id":${String(request.id)},"done":false,"value":${deep},"frozen":true}`);
        }),
      );
      const failure = await call(target, { op: 'chain.next' }, 10_000).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect([failure instanceof TargetFailure, (failure as Error).message]).toEqual([
        true,
        expect.stringMatching(/^the reply to chain\.next could not be checked: /),
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
