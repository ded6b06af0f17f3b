/**
 * The protocol as documents for people and for other languages' tooling,
 * both made from the zod schemas of `messages.ts`: the JSON Schema committed
 * as `spec/protocol.schema.json`, whose definitions are named after the
 * messages (`ChainAddRequest`, `ChainAddReply`), and the table of messages
 * and their fields in `spec/README.md`. A test fails while either differs
 * from what these functions make.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { agentCase } from '../cases/agent-case';
import { signalSpec, stageSpec, stateSpec, terminalSpec } from '../cases/chain-case';
import { ReliabilityCaseSchema } from '../cases/reliability-case';
import { namedDefinitions } from '../cases/schema-names';
import { agentObservation } from './agent-observation';
import { handlerSpec } from './chain-requests';
import { errorReport } from './error-report';
import { builtinClaim, failureReply, protocolReplies, protocolRequest, requestOfOp } from './messages';

/** `chain.asyncDispose` → `ChainAsyncDispose`. */
function pascal(op: string): string {
  return op
    .split('.')
    .map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`)
    .join('');
}

/** The definition names of what several messages share, or what is big enough to read on its own. */
function sharedNames(): Map<z.core.$ZodType, string> {
  return new Map<z.core.$ZodType, string>([
    [errorReport, 'ErrorReport'],
    [agentCase, 'AgentCase'],
    [ReliabilityCaseSchema, 'ReliabilityCase'],
    [agentObservation, 'AgentObservation'],
    [builtinClaim, 'BuiltinClaim'],
    [stageSpec, 'Stage'],
    [signalSpec, 'Signal'],
    [stateSpec, 'State'],
    [terminalSpec, 'Terminal'],
    [handlerSpec, 'Handler'],
  ]);
}

/** The definition names of the protocol: each request and reply after its op, the failure reply, and the shared ones. */
function protocolNames(): Map<z.core.$ZodType, string> {
  const names = sharedNames();
  names.set(failureReply, 'FailureReply');
  for (const [op, request] of requestOfOp) names.set(request, `${pascal(op)}Request`);
  for (const [op, reply] of Object.entries(protocolReplies)) names.set(reply, `${pascal(op)}Reply`);
  return names;
}

/** The JSON Schema committed as `spec/protocol.schema.json`: one object whose properties are the request line and the reply of each op. */
export function protocolJsonSchema(): unknown {
  const catalogue = z.strictObject({
    request: protocolRequest.describe('A request line'),
    failure: failureReply,
    replies: z.strictObject(protocolReplies).describe("The reply line of each op (with the request's id added)"),
  });
  return {
    ...(z.toJSONSchema(catalogue, { io: 'input', unrepresentable: 'any', metadata: namedDefinitions(protocolNames()) }) as object),
    title: 'staged-middleware conformance protocol',
    description:
      'Not a message itself: #/properties/request describes every request line, #/properties/replies/properties/<op> the reply to a request of that op, and #/properties/failure the reply of a request a port could not carry out; #/$defs/<Op>Request and #/$defs/<Op>Reply are the request and the reply of each op (ChainAddRequest for chain.add). Lines are JSON objects, one per line, UTF-8.',
  };
}

/** A JSON Schema, as far as the table reads one. */
interface JsonSchemaNode {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
  readonly anyOf?: readonly JsonSchemaNode[];
  readonly items?: JsonSchemaNode;
  readonly properties?: Readonly<Record<string, JsonSchemaNode>>;
  readonly required?: readonly string[];
}

/** A field's type in a few words: `string`, `"a" \| "b"`, `array of WrapStep`, `ErrorReport`, `JSON`. */
function typeOf(node: JsonSchemaNode): string {
  if (node.$ref !== undefined) {
    const name = node.$ref.slice(node.$ref.lastIndexOf('/') + 1);
    return name === 'JsonValue' ? 'JSON' : name;
  }
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (node.enum !== undefined) return node.enum.map((value) => JSON.stringify(value)).join(' \\| ');
  if (node.anyOf !== undefined) {
    // A described copy of z.json() inlines its union, whose arrays hold JSON values.
    if (node.anyOf.some((branch) => branch.items?.$ref?.endsWith('/JsonValue') === true)) return 'JSON';
    return [...new Set(node.anyOf.map(typeOf))].join(' \\| ');
  }
  if (node.type === 'array') return node.items === undefined ? 'array' : `array of ${typeOf(node.items)}`;
  if (Array.isArray(node.type)) return node.type.join(' \\| ');
  if (typeof node.type === 'string') return node.type;
  return 'any';
}

/** The fields of one message: `` `name`: type ``, with `?` after the name of an optional one; `op` left out. */
function fieldsOf(schema: z.ZodType): string {
  const node = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    metadata: namedDefinitions(sharedNames()),
  }) as JsonSchemaNode;
  const required = new Set(node.required ?? []);
  const fields = Object.entries(node.properties ?? {}).filter(([name]) => name !== 'op');
  if (fields.length === 0) return '(none)';
  return fields.map(([name, field]) => `\`${name}\`${required.has(name) ? '' : '?'}: ${typeOf(field)}`).join(', ');
}

/**
 * The table of `spec/README.md` ("Every message"): per op, the fields of its
 * request and of its reply, with their types in a few words, in the order
 * the schemas list them. Every request also has `id` and `op`, and every
 * reply `id`; any request may instead get the failure reply.
 */
export function protocolMessageTable(): string {
  const rows = [...requestOfOp].map(([op, request]) => {
    const reply = (protocolReplies as Record<string, z.ZodType>)[op] as z.ZodType;
    return `| \`${op}\` | ${fieldsOf(request)} | ${fieldsOf(reply)} |`;
  });
  return [
    '| op | request fields (besides `id`, `op`) | reply fields (besides `id`) |',
    '| --- | --- | --- |',
    ...rows,
    `| any | | the failure reply: ${fieldsOf(failureReply.omit({ id: true }))} |`,
  ].join('\n');
}
