import { describe, expect, it } from 'vitest';
import { libraryTarget, type ConformanceTarget } from '../../conformance/index';
import type { ProtocolRequest } from '../../conformance/protocol/messages';
import { served } from './lines';

/** A target that answers every request with `{ echoed: <the request> }`, and the requests it got. */
function echoTarget(): ConformanceTarget & { readonly received: ProtocolRequest[] } {
  const received: ProtocolRequest[] = [];
  return {
    received,
    request: async (request) => {
      received.push(request);
      return { echoed: request };
    },
  };
}

/** A target whose every answer is `reply` (a function: what it throws, it throws). */
function answering(reply: () => unknown): ConformanceTarget {
  return { request: async () => reply() };
}

const hello = JSON.stringify({ id: 2, op: 'hello', protocol: 1 });
const echoedHello = { id: 2, echoed: { op: 'hello', protocol: 1 } };

describe('serveProtocol', () => {
  describe('with a line that is no request', () => {
    it.each([
      ['not JSON', 'not json', 'not a JSON request: not json'],
      ['null', 'null', 'not a request (a JSON object with an id), got null: null'],
      [
        'an array',
        '[{"id":1,"op":"hello","protocol":1}]',
        'not a request (a JSON object with an id), got an array of length 1: [{"id":1,"op":"hello","protocol":1}]',
      ],
      ['a number', '42', 'not a request (a JSON object with an id), got number 42: 42'],
      ['a string', '"hello"', 'not a request (a JSON object with an id), got the string "hello": "hello"'],
      ['a boolean', 'false', 'not a request (a JSON object with an id), got boolean false: false'],
      [
        'an object without an id',
        '{"op":"hello","protocol":1}',
        'not a request: its id must be an integer from 0, got undefined: {"op":"hello","protocol":1}',
      ],
      [
        'an id that is a string',
        '{"id":"1","op":"hello","protocol":1}',
        'not a request: its id must be an integer from 0, got the string "1": {"id":"1","op":"hello","protocol":1}',
      ],
      [
        'a negative id',
        '{"id":-1,"op":"hello","protocol":1}',
        'not a request: its id must be an integer from 0, got number -1: {"id":-1,"op":"hello","protocol":1}',
      ],
      [
        'an id that is a fraction',
        '{"id":1.5,"op":"hello","protocol":1}',
        'not a request: its id must be an integer from 0, got number 1.5: {"id":1.5,"op":"hello","protocol":1}',
      ],
      ['an id of null', '{"id":null}', 'not a request: its id must be an integer from 0, got null: {"id":null}'],
    ])('answers %s with the failure reply of id -1, then answers the next line', async (_name, line, failure) => {
      const target = echoTarget();
      expect([(await served(target, [line, hello])).map((written) => JSON.parse(written) as unknown), target.received]).toEqual([
        [{ id: -1, failure }, echoedHello],
        [{ op: 'hello', protocol: 1 }],
      ]);
    });

    it('quotes the first 200 characters of a long line', async () => {
      const line = `"${'x'.repeat(300)}"`;
      expect(await served(echoTarget(), [line])).toEqual([
        JSON.stringify({
          id: -1,
          failure: `not a request (a JSON object with an id), got the string "${'x'.repeat(40)}…": ${line.slice(0, 200)}…`,
        }),
      ]);
    });

    it('quotes a line of exactly 200 characters whole', async () => {
      const line = `"${'x'.repeat(198)}"`;
      expect(await served(echoTarget(), [line])).toEqual([
        JSON.stringify({ id: -1, failure: `not a request (a JSON object with an id), got the string "${'x'.repeat(40)}…": ${line}` }),
      ]);
    });

    it('skips blank lines without an answer', async () => {
      expect(await served(echoTarget(), ['', '  ', hello])).toEqual([JSON.stringify(echoedHello)]);
    });

    it('with this library behind it, answers null and goes on to the handshake', async () => {
      const [first, second] = (await served(libraryTarget(), ['null', hello])).map((line) => JSON.parse(line) as Record<string, unknown>);
      expect([first, second?.id, second?.protocol]).toEqual([
        { id: -1, failure: 'not a request (a JSON object with an id), got null: null' },
        2,
        1,
      ]);
    });
  });

  describe('with a request it cannot carry out', () => {
    it.each([
      ['an unknown op', { id: 3, op: 'chain.nope' }, 'unknown op: the string "chain.nope"'],
      ['no op', { id: 3 }, 'unknown op: undefined'],
      ['an op that is not a string', { id: 3, op: ['hello'] }, 'unknown op: an array of length 1'],
      ['an op named like a property of every object', { id: 3, op: '__proto__' }, 'unknown op: the string "__proto__"'],
      ['an op named like a method of every object', { id: 3, op: 'toString' }, 'unknown op: the string "toString"'],
    ])('answers %s with the failure reply of its id', async (_name, request, failure) => {
      const target = echoTarget();
      expect([await served(target, [JSON.stringify(request)]), target.received]).toEqual([[JSON.stringify({ id: 3, failure })], []]);
    });

    it.each([
      ['a field of the wrong type', { id: 4, op: 'hello', protocol: '1' }, 'protocol: '],
      ['a field its op does not have', { id: 4, op: 'chain.next', extra: true }, '(the value): '],
      ['a missing field', { id: 4, op: 'chain.abort' }, 'reason: '],
    ])('answers a request with %s with the failure reply of its id, naming the field', async (_name, request, field) => {
      const target = echoTarget();
      const replies = (await served(target, [JSON.stringify(request)])).map((line) => JSON.parse(line) as unknown);
      expect([replies, target.received]).toEqual([
        [
          {
            id: 4,
            failure: expect.stringMatching(`^the ${request.op} request does not match the protocol: ${field.replace(/[()]/g, '\\$&')}`),
          },
        ],
        [],
      ]);
    });

    it('answers a request nested too deeply to check with the failure reply of its id', async () => {
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      const line = `{"id":5,"op":"chain.invoke","on":"parent","stageAs":"stage","context":${deep},"terminal":{"calls":[[]]},"consumer":"iterate"}`;
      expect((await served(echoTarget(), [line, hello])).map((written) => JSON.parse(written) as unknown)).toEqual([
        { id: 5, failure: expect.stringMatching(/^the chain\.invoke request could not be checked: /) },
        echoedHello,
      ]);
    });
  });

  describe('with a target that fails', () => {
    it.each([
      [
        'throws an error',
        () => {
          throw new Error('harness broke');
        },
        'the request failed: harness broke',
      ],
      [
        'throws a value that is no error',
        () => {
          throw 'just a string';
        },
        'the request failed: just a string',
      ],
      [
        'throws an error whose message is no string',
        () => {
          throw Object.assign(new Error('unused'), { message: 5 });
        },
        'the request failed: number 5',
      ],
      [
        'throws an object that has no string form',
        () => {
          throw Object.create(null);
        },
        'the request failed: a plain object',
      ],
      ['answers a number', () => 42, 'the reply is not a JSON object: number 42'],
      ['answers null', () => null, 'the reply is not a JSON object: null'],
      ['answers an array', () => [1], 'the reply is not a JSON object: an array of length 1'],
      [
        'answers a value JSON cannot carry',
        () => ({ count: 1n }),
        'the reply cannot be written as JSON: Do not know how to serialize a BigInt',
      ],
      [
        'answers an object with a throwing getter',
        () => ({
          get broken(): never {
            throw new Error('getter failed');
          },
        }),
        'the reply cannot be written as JSON: getter failed',
      ],
    ])('answers when the target %s with the failure reply of the id, and goes on', async (_name, reply, failure) => {
      expect(
        (await served(answering(reply), [hello, JSON.stringify({ id: 3, op: 'chain.end' })])).map((line) => JSON.parse(line) as unknown),
      ).toEqual([
        { id: 2, failure },
        { id: 3, failure },
      ]);
    });

    it('writes the request’s id, whatever id the reply carries', async () => {
      expect(
        await served(
          answering(() => ({ id: 99, done: true })),
          [hello],
        ),
      ).toEqual([JSON.stringify({ id: 2, done: true })]);
    });
  });

  describe('with a request', () => {
    it('hands the target the request without its id, unchanged, a __proto__ key kept as an own key', async () => {
      const target = echoTarget();
      const request =
        '{"op":"chain.invoke","on":"parent","stageAs":"stage","context":{"__proto__":{"isAdmin":true},"q":1},"terminal":{"calls":[[]]},"consumer":"run"}';
      const written = await served(target, [`{"id":7,${request.slice(1)}`]);
      const received = target.received[0] as unknown as { readonly context: object };
      expect({
        received: JSON.stringify(target.received),
        prototype: Object.getPrototypeOf(received.context) === Object.prototype,
        inherited: (received.context as { readonly isAdmin?: unknown }).isAdmin,
        written,
      }).toEqual({
        received: `[${request}]`,
        prototype: true,
        inherited: undefined,
        written: [`{"id":7,"echoed":${request}}`],
      });
    });
  });
});
