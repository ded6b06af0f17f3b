/**
 * Generated protocol lines, as JSON text: values with keys such as
 * `__proto__` (which `JSON.parse` makes own keys, and an object literal
 * would not), lines that are no request, requests of every shape, and the
 * replies a port may write. Each arbitrary yields text, so what a line holds
 * is exactly what the parsers under test read.
 */
import fc from 'fast-check';

/** Keys, the ones every object has by inheritance among them. */
const key = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'id', 'op') },
);

/** Any JSON value, as text. */
export const jsonText: fc.Arbitrary<string> = fc.letrec<{ json: string }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('null', 'true', 'false'),
    fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })).map((number) => JSON.stringify(number)),
    fc.string({ maxLength: 8 }).map((text) => JSON.stringify(text)),
    fc.array(tie('json'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    fc.array(fc.tuple(key, tie('json')), { maxLength: 4 }).map((entries) => objectText(entries)),
  ),
})).json;

/** A JSON object's text from its entries, in order. */
export function objectText(entries: readonly (readonly [string, string])[]): string {
  return `{${entries.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`;
}

/** The text of an id: valid ones (integers from 0), and every way to miss. */
const idText = fc.oneof(
  fc.nat().map(String),
  fc.constantFrom('-1', '-7', '1.5', '"1"', 'null', 'true', '[1]', '{}', '9007199254740993', '1e3', '-0', '0.0'),
);

/** The ops a request may name: every kind, and names no op has. */
const opText = fc.constantFrom(
  '"hello"',
  '"chain.begin"',
  '"chain.next"',
  '"chain.end"',
  '"chain.abort"',
  '"chain.invoke"',
  '"agent.run"',
  '"reliability.run"',
  '"chain.nope"',
  '"__proto__"',
  '"constructor"',
  '1',
  'null',
);

/** A line that looks like a request: an id (or none), an op (or none), and any other fields. */
export const requestLikeLine: fc.Arbitrary<string> = fc
  .tuple(fc.option(idText), fc.option(opText), fc.array(fc.tuple(key, jsonText), { maxLength: 3 }))
  .map(([id, op, rest]) =>
    objectText([...(id === null ? [] : [['id', id] as const]), ...(op === null ? [] : [['op', op] as const]), ...rest]),
  );

/** The fields of a request the protocol accepts, after its id: what `conformance serve` hands on. */
export const acceptedRequestFields: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map((protocol) => `"op":"hello","protocol":${protocol}`),
  fc.constantFrom('"op":"chain.next"', '"op":"chain.end"', '"op":"chain.return"', '"op":"chain.throw"', '"op":"chain.asyncDispose"'),
  fc.string({ maxLength: 8 }).map((reason) => `"op":"chain.abort","reason":${JSON.stringify(reason)}`),
  jsonText.map((name) => `"op":"chain.key","name":${name}`),
  jsonText.map(
    (context) => `"op":"chain.invoke","on":"parent","stageAs":"stage","context":${context},"terminal":{"calls":[[]]},"consumer":"run"`,
  ),
);

/** Any line `conformance serve` may read. */
export const anyLine: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 12 }),
  jsonText,
  requestLikeLine,
  fc.tuple(fc.nat(), acceptedRequestFields).map(([id, fields]) => `{"id":${id},${fields}}`),
);

/** The fields of a reply the protocol accepts, for each op the tests send, after its id. */
export const acceptedReplyFields = {
  'chain.next': fc.oneof(
    fc.tuple(jsonText, fc.boolean()).map(([value, frozen]) => `"done":false,"value":${value},"frozen":${String(frozen)}`),
    fc.constant('"done":true'),
  ),
  'chain.end': fc
    .tuple(fc.array(jsonText, { maxLength: 3 }), fc.nat(), fc.boolean())
    .map(
      ([writes, gets, frozen]) =>
        `"warnings":[],"stateWrites":[${writes.join(',')}],"stateGets":${gets},"snapshotFrozen":${String(frozen)}`,
    ),
  'reliability.run': jsonText.map((observed) => `"observed":${observed}`),
  hello: fc.string({ maxLength: 8 }).map((name) => `"protocol":1,"name":${JSON.stringify(name)},"kinds":["chain"]`),
} as const;

/** An op the runner-side tests send. */
export type SentOp = keyof typeof acceptedReplyFields;

/** A line a port writes back: `reply` when the protocol accepts it as the reply of its op, `failure` the failure reply, else `any`. */
export interface ReplyLine {
  readonly line: string;
  readonly kind: 'reply' | 'failure' | 'any';
}

/** What a port may write back to request `id` of `op`. */
export function replyLine(op: SentOp): fc.Arbitrary<(id: number) => ReplyLine> {
  return fc.oneof(
    // Not blank: a blank line is skipped, and the request would wait for a reply that never comes.
    fc
      .string({ minLength: 1, maxLength: 12 })
      .filter((line) => line.trim() !== '')
      .map((line) => () => ({ line, kind: 'any' as const })),
    jsonText.map((line) => () => ({ line, kind: 'any' as const })),
    fc
      .tuple(fc.constantFrom('same', 'other', 'minus one'), fc.array(fc.tuple(key, jsonText), { maxLength: 3 }))
      .map(([which, rest]) => (id: number) => {
        const replyId = which === 'same' ? id : which === 'other' ? id + 1 : -1;
        return { line: objectText([['id', String(replyId)], ...rest]), kind: 'any' as const };
      }),
    fc
      .string({ maxLength: 8 })
      .map((failure) => (id: number) => ({ line: `{"id":${id},"failure":${JSON.stringify(failure)}}`, kind: 'failure' as const })),
    acceptedReplyFields[op].map((fields) => (id: number) => ({ line: `{"id":${id},${fields}}`, kind: 'reply' as const })),
  );
}
