/**
 * The messages of the conformance protocol, as zod schemas: every request the
 * runner sends and the reply each one gets. `spec/protocol.schema.json` is
 * generated from them (see `spec/README.md`, "The protocol"); the runner
 * checks every reply of a port against them; `protocol-schema.ts` makes
 * the committed JSON Schema and the README's table of messages from them.
 *
 * Why chain cases go step by step while reliability and agent cases go whole:
 * the runner does all the bookkeeping of a chain case (options, the order of
 * operations, which keys to compare, expected setup errors) so that a port
 * implements only primitives; a reliability scenario or an agent run is one
 * piece of the port's own concurrency and loop, which no step protocol could
 * drive faithfully from outside.
 */
import { z } from 'zod';
import { agentCase } from '../cases/agent-case';
import { json } from '../cases/case-base';
import { opaqueKind } from '../cases/chain-steps';
import { ReliabilityCaseSchema } from '../cases/reliability-case';
import { agentObservation } from './agent-observation';
import { chainRequests } from './chain-requests';
import { errorReport } from './error-report';

/** The protocol version this runner speaks. */
export const PROTOCOL_VERSION = 1;

const kind = z.enum(['chain', 'reliability', 'agent']);

/** Part of a built-in claimed: the chain cases using it only with these options, or only these cases. */
export const builtinClaim = z
  .strictObject({
    name: z.string().describe('The built-in, as chain.use names it'),
    options: z
      .array(z.string())
      .optional()
      .describe(
        'The options of chain.use it takes ("store": any value; "store=json": only that string value); a case giving another is not claimed. name is always taken',
      ),
    cases: z.array(z.string()).optional().describe('Only the cases whose ids match one of these patterns (* matches any text)'),
  })
  .describe('Part of a built-in: the cases it does not cover are reported as not claimed');

const helloRequest = z
  .strictObject({ op: z.literal('hello'), protocol: z.number().int().describe('The protocol version the runner speaks (1)') })
  .describe('The first request: the port answers with what it claims');
const requests = [
  helloRequest,
  ...chainRequests,
  z.strictObject({ op: z.literal('reliability.run'), case: ReliabilityCaseSchema }).describe('Runs one reliability scenario'),
  z.strictObject({ op: z.literal('agent.run'), case: agentCase }).describe('Runs one agent case'),
] as const;

/** The id of a request: what makes a line a request, echoed by its reply. */
export const requestId = z.number().int().nonnegative();

/** Every request the runner sends. */
export const protocolRequest = z.union(requests).and(z.object({ id: requestId.describe('Echoed by the reply') }));

/** The request of each op, without its id (a map: an op such as `__proto__` finds nothing). */
export const requestOfOp: ReadonlyMap<string, z.ZodType> = new Map(requests.map((request) => [request.shape.op.value, request]));

const trace = z.array(z.string()).optional().describe('The lines recorded into the trace since the previous reply, in order');
const withError = { error: errorReport.optional().describe('The error the call threw or rejected with'), trace };

/** The reply to each request, by op (besides the failure reply every request may get). */
export const protocolReplies = {
  hello: z
    .strictObject({
      protocol: z.number().int().describe('The protocol version the port speaks'),
      name: z.string().describe('The implementation, for reports'),
      kinds: z.array(kind).describe('The kinds of case it runs'),
      builtins: z
        .array(z.union([z.string(), builtinClaim]))
        .optional()
        .describe('The built-in middleware chain.use provides (section 4): a name claims it whole, an object part of it'),
      scenarios: z.array(z.string()).optional().describe('The reliability scenarios it provides'),
      capabilities: z.array(z.string()).optional().describe('The agent loop capabilities it has'),
    })
    .describe('What the port claims; cases needing anything else are reported as not claimed'),
  'chain.begin': z.strictObject({
    stageFrozen: z.boolean().optional().describe('The stage and its three phase tokens are frozen and point back to it'),
    ...withError,
  }),
  'chain.add': z.strictObject(withError),
  'chain.bundle': z.strictObject(withError),
  'chain.use': z.strictObject(withError),
  'chain.key': z.strictObject(withError),
  'chain.contributions': z.strictObject({
    entries: z.array(z.record(z.string(), json)).optional().describe('Every entry with all its keys, undefined as null'),
    ...withError,
  }),
  'chain.dispose': z.strictObject({ trace }),
  'chain.remove': z.strictObject({ removed: z.boolean(), trace }),
  'chain.instrument': z.strictObject({ trace }),
  'chain.describe': z.strictObject({
    entries: z.array(z.record(z.string(), json)).optional().describe('Every describe() entry with all its keys, undefined as null'),
    explain: z.string().optional(),
    ...withError,
  }),
  'chain.invoke': z.strictObject({
    result: json.optional().describe('run(): the value it resolved with (absent for undefined)'),
    ...withError,
  }),
  'chain.next': z.strictObject({
    done: z.boolean().optional(),
    value: json.optional().describe('The event (absent for undefined)'),
    frozen: z.boolean().optional().describe('The event is deeply frozen'),
    opaque: opaqueKind
      .optional()
      .describe('The event is the very value a yieldOpaque step of this kind made; value and frozen are then absent'),
    ...withError,
  }),
  'chain.return': z.strictObject(withError),
  'chain.throw': z.strictObject(withError),
  'chain.asyncDispose': z.strictObject({
    value: json.optional().describe('What the promise resolved with, absent for undefined'),
    ...withError,
  }),
  'chain.abort': z.strictObject({ trace }),
  'chain.end': z.strictObject({
    warnings: z.array(
      z.strictObject({
        code: z.string(),
        id: z.string().optional().describe('WARN_UNKNOWN_ID: the unknown id'),
        handler: z.string(),
        places: z.array(z.string()).optional().describe('WARN_DUPLICATE_HANDLER: both places, as the warning gives them'),
      }),
    ),
    stateWrites: z.array(json).describe("Values given to the binding's set(), in order"),
    stateGets: z.number().int().describe('Calls of get()'),
    snapshotFrozen: z
      .boolean()
      .describe(
        'The state snapshot the library took (the value get() returned, or the frozen copy it took of it) is deeply frozen now; false without a state binding',
      ),
    trace,
  }),
  'reliability.run': z.strictObject({ observed: json.describe("The scenario's observation, keyed like its expect") }),
  'agent.run': z.strictObject({ observed: agentObservation }),
} as const;

/** The reply of a request the port could not carry out (an unknown op or step, a fault of its harness). */
export const failureReply = z.strictObject({ id: z.number().int(), failure: z.string().describe('What went wrong, for the report') });

/** An op of the protocol. */
export type ProtocolOp = keyof typeof protocolReplies;
/** Any request, without its id. */
export type ProtocolRequest = DistributiveOmit<z.infer<typeof protocolRequest>, 'id'>;
/** The request of one op. */
export type RequestOf<TOp extends ProtocolOp> = Extract<ProtocolRequest, { op: TOp }>;
/** The reply of one op. */
export type ReplyOf<TOp extends ProtocolOp> = z.infer<(typeof protocolReplies)[TOp]>;
/** What a port claims. */
export type Claims = ReplyOf<'hello'>;
/** A kind of case. */
export type CaseKind = z.infer<typeof kind>;
/** Part of a built-in an implementation claims. */
export type BuiltinClaim = z.infer<typeof builtinClaim>;

/** Omit over each member of a union. */
type DistributiveOmit<T, TKey extends PropertyKey> = T extends unknown ? Omit<T, TKey> : never;
