/**
 * The two parsers of protocol lines under generated input: `conformance
 * serve` reading request lines (serveProtocol), and the runner reading a
 * port's reply lines (protocolTarget and the runner's check of each reply).
 * Neither ever throws what it read back at its caller: the server answers
 * every line, a failure reply when it must, and the runner fails the waiting
 * request with a TargetFailure (the case's failure). Whatever they accept
 * they hand on as it was written, `__proto__` keys included, and every object
 * they hand on has the prototype of its kind.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { libraryTarget, protocolTarget, type ConformanceTarget, type ProtocolRequest } from '../../conformance/index';
import { call, TargetFailure } from '../../conformance/runner/target';
import { fakePort, served } from './lines';
import { acceptedRequestFields, anyLine, replyLine, type ReplyLine, type SentOp } from './protocol-arbitraries';

const RUNS = { numRuns: 250 };

/** The id the reply to `line` must carry: its id when it is a request, -1 when it is none; undefined for a blank line, which gets no reply. */
function expectedId(line: string): number | undefined {
  if (line.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return -1;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return -1;
  const { id } = value as { readonly id?: unknown };
  // -0 is the integer 0, and JSON writes it so.
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id + 0 : -1;
}

/** The object of a line without its id, copied key by key as data (a `__proto__` key stays an own key). */
function withoutId(line: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(JSON.parse(line) as object).filter(([key]) => key !== 'id'));
}

/** Whether every object inside `value` has the prototype of its kind: an array's, else a plain object's. */
function plainThroughout(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== (Array.isArray(value) ? Array.prototype : Object.prototype)) return false;
  return Object.values(value).every(plainThroughout);
}

/** A target answering every request with `{ echoed: <the request> }`, and the requests it got. */
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

/** The request the runner-side property sends for each op. */
const REQUESTS: Record<SentOp, ProtocolRequest> = {
  'chain.next': { op: 'chain.next' },
  'chain.end': { op: 'chain.end' },
  'reliability.run': { op: 'reliability.run', case: {} as never },
  hello: { op: 'hello', protocol: 1 },
};

describe('serveProtocol, fed generated lines', () => {
  it('answers every line that is not blank with one JSON object carrying its id (-1 for a line that is no request), and returns', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(anyLine, { maxLength: 4 }), async (lines) => {
        const replies = (await served(libraryTarget(), lines)).map((line) => JSON.parse(line) as Record<string, unknown>);
        const ids = lines.map(expectedId).filter((id) => id !== undefined);
        expect(replies.map((reply) => reply.id)).toEqual(ids);
        replies.forEach((reply, index) => {
          if (ids[index] === -1 || 'failure' in reply) expect(reply).toEqual({ id: ids[index], failure: expect.any(String) });
        });
        expect(plainThroughout(replies)).toBe(true);
      }),
      RUNS,
    );
  });

  it('hands the target each request it accepts as written, and writes the reply as the target gave it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(), acceptedRequestFields, async (id, fields) => {
        const line = `{"id":${id},${fields}}`;
        const target = echoTarget();
        const written = await served(target, [line]);
        const request = withoutId(line);
        expect({
          received: JSON.stringify(target.received),
          plain: plainThroughout(target.received),
          written,
        }).toEqual({ received: JSON.stringify([request]), plain: true, written: [JSON.stringify({ id, echoed: request })] });
      }),
      RUNS,
    );
  });

  it('answers every request whatever the target throws or answers, with the failure reply when it throws', async () => {
    const anything = fc.anything({ withBigInt: true, withNullPrototype: true, withBoxedValues: true, withMap: true, withSet: true });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.boolean(), anything), { minLength: 1, maxLength: 3 }), async (answers) => {
        let call = 0;
        const target: ConformanceTarget = {
          request: async () => {
            const [throws, value] = answers[call++] as [boolean, unknown];
            if (throws) throw value;
            return value;
          },
        };
        const lines = answers.map((_answer, id) => JSON.stringify({ id, op: 'chain.next' }));
        const replies = (await served(target, lines)).map((line) => JSON.parse(line) as Record<string, unknown>);
        expect(replies.map((reply) => reply.id)).toEqual(answers.map((_answer, id) => id));
        answers.forEach(([throws], index) => {
          const reply = replies[index] as Record<string, unknown>;
          if (throws || 'failure' in reply) expect(reply).toEqual({ id: index, failure: expect.any(String) });
        });
      }),
      RUNS,
    );
  });
});

describe('protocolTarget and the runner’s check of a reply, fed generated replies', () => {
  it('hand back only a reply of the op, as the port wrote it, and fail the request with a TargetFailure otherwise', async () => {
    const sent = fc.constantFrom<SentOp>('chain.next', 'chain.end', 'reliability.run', 'hello');
    await fc.assert(
      fc.asyncProperty(
        sent.chain((op) => fc.tuple(fc.constant(op), replyLine(op))),
        async ([op, reply]) => {
          let written: ReplyLine | undefined;
          const target = protocolTarget(() =>
            fakePort((request, write) => {
              written = reply(request.id as number);
              write(written.line);
            }),
          );
          let outcome: { readonly reply: unknown } | { readonly error: unknown };
          try {
            outcome = { reply: await call(target, REQUESTS[op], 60_000) };
          } catch (error) {
            outcome = { error };
          }
          await target.close?.();
          const { line, kind } = written as ReplyLine;
          if ('error' in outcome) {
            expect(outcome.error).toBeInstanceOf(TargetFailure);
            expect(kind).not.toEqual('reply');
            if (kind === 'failure') expect((outcome.error as Error).message).toEqual(`${op} failed: ${String(withoutId(line).failure)}`);
            return;
          }
          expect(expectedId(line)).toEqual(1);
          expect(kind).not.toEqual('failure');
          expect({ reply: JSON.stringify(outcome.reply), plain: plainThroughout(outcome.reply) }).toEqual({
            reply: JSON.stringify(withoutId(line)),
            plain: true,
          });
        },
      ),
      RUNS,
    );
  });
});
