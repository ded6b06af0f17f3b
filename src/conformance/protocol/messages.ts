/**
 * The messages of the conformance protocol, as zod schemas: every request the
 * runner sends and the reply each one gets. `spec/protocol.schema.json` is
 * generated from them (see `spec/README.md`, "The protocol"); the runner
 * checks every reply of a port against them.
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
import { inputStep, json, outputStep, returns, signalSpec, stageSpec, stateSpec, terminalSpec, wrapStep } from '../cases/chain-case';
import { ReliabilityCaseSchema } from '../cases/reliability-case';

/** The protocol version this runner speaks. */
export const PROTOCOL_VERSION = 1;

const kind = z.enum(['chain', 'reliability', 'agent']);
const scope = z.enum(['parent', 'child']);
const label = z.string().optional().describe('Names what this request registers, for later chain.dispose and chain.remove requests');

/** An error as a port reports it; the runner picks the fields a case compares. */
export const errorReport = z
  .strictObject({
    code: z
      .string()
      .optional()
      .describe("The error's code when it is an error of the library (recognised by its isInstance); absent for a user error"),
    genuine: z.boolean().optional().describe('With code: its name is also "MiddlewareError"'),
    message: z.string().describe("The error's message (String(value) for a thrown value without one)"),
    thrownByCase: z
      .boolean()
      .describe('It is the very object a script step of the case threw (or the port threw for the case: "consumer stop", "setup failed")'),
    stage: z.string().nullable().describe("The error's stage field; null when it has none"),
    phase: z.string().nullable().describe("The error's phase field; null when it has none"),
    handler: z.string().nullable().describe("The error's handler field; null when it has none"),
    cause: json
      .optional()
      .describe(
        'The cause, absent when there is none: a string (or other JSON value) as it is, {"issues": [messages]} for a schema error, {"code"} for a library error, else {"message"}',
      ),
  })
  .describe('An error the library raised or user code threw');

const helloRequest = z
  .strictObject({ op: z.literal('hello'), protocol: z.number().int().describe('The protocol version the runner speaks (1)') })
  .describe('The first request: the port answers with what it claims');

const placement = {
  phase: z.enum(['input', 'wrap', 'output']),
  stage: z.string().optional().describe("Name of one of the begin request's otherStages; default: the case's stage"),
  target: z
    .enum(['phase', 'bare', 'forged'])
    .optional()
    .describe("'phase' (default): the phase token; 'bare': the stage itself; 'forged': a spread copy of the phase token"),
  options: z.record(z.string(), json).optional().describe('The options argument of add, as it is; absent: add is called without options'),
};

/** The function a registration registers: a script, a value that is no function, or the function of an earlier registration. */
const handlerSpec = z
  .union([
    z.strictObject({
      steps: z.array(z.union([inputStep, outputStep, wrapStep])).describe("The script, in the step vocabulary of the request's phase"),
      fnName: z.string().optional().describe("The function's own name; absent: a function whose name is empty"),
      async: z.boolean().optional().describe('Input and Output: the handler returns a promise of its value'),
      finally: z.string().optional().describe('Wrap: records this label when the handler ends, however it ends'),
      returns,
    }),
    z.strictObject({ notAFunction: json.describe('Registers this value instead of a function') }),
    z.strictObject({ reuse: z.string().describe('Registers the very function of the registration with this label again') }),
  ])
  .describe('What is registered');

const registration = z.strictObject({ ...placement, handler: handlerSpec });

const chainRequests = [
  z
    .strictObject({
      op: z.literal('chain.begin'),
      case: z.string().describe("The case id, for the port's logs"),
      stage: stageSpec,
      otherStages: z.array(z.string()).optional().describe('More stages, with the same guard and no schemas'),
      signal: signalSpec.optional(),
      state: stateSpec.optional(),
    })
    .describe(
      'Starts a chain case: a fresh trace, the stages, a root registry (collecting warnings), one child of it, the signal and the state binding',
    ),
  z
    .strictObject({ op: z.literal('chain.add'), scope: z.enum(['parent', 'child', 'invoke']), ...registration.shape, label })
    .describe("registry.add(target, handler, options?); scope 'invoke' collects the registration for the invoke's options.use instead"),
  z
    .strictObject({
      op: z.literal('chain.bundle'),
      scope,
      name: z.string(),
      handlers: z.array(registration).describe('What setup registers through the registrar, in order'),
      provides: z
        .array(
          z.strictObject({
            key: z.string().describe('The name of a key a chain.key request created'),
            value: json,
            rawKey: json.optional().describe('Given to provide() as the key instead of the named key'),
            label,
          }),
        )
        .optional()
        .describe('What setup contributes with registrar.provide(key, value), in order, after the handlers'),
      throwAfter: z
        .number()
        .int()
        .nonnegative()
        .optional()
        .describe('setup throws Error("setup failed") after this many registrations (the handlers, then the provides)'),
      label,
    })
    .describe('registry.use({ name, setup })'),
  z
    .strictObject({
      op: z.literal('chain.key'),
      name: json.describe('The name argument, as it is'),
      identify: json
        .optional()
        .describe('true: identify(value) returns value.id; another value is given as identify as it is; absent: no identify'),
      stage: json.optional().describe("true: the case's stage; another value is given as stage as it is; absent: no stage"),
    })
    .describe(
      'createContributionKey(name, options?), options given only when identify or stage is; the key is kept under its name for chain.bundle and chain.contributions',
    ),
  z
    .strictObject({ op: z.literal('chain.contributions'), on: scope, key: z.string().describe('A key name') })
    .describe('contributions(key) of that registry, with a new key of that name (keys are matched by name, MW-053)'),
  z
    .strictObject({ op: z.literal('chain.use'), scope, builtin: z.string(), options: z.record(z.string(), json), label })
    .describe('Registers the built-in middleware as spec/README.md maps it'),
  z
    .strictObject({ op: z.literal('chain.dispose'), label: z.string(), times: z.number().int().positive() })
    .describe('Calls the labelled disposer this many times'),
  z
    .strictObject({
      op: z.literal('chain.remove'),
      scope: scope.optional(),
      handlerId: z.string().optional(),
      label: z.string().optional(),
    })
    .describe(
      'registry.remove(handlerId), or remove(target, handler) of the labelled registration (on its own scope unless scope is given)',
    ),
  z
    .strictObject({
      op: z.literal('chain.instrument'),
      scope,
      name: z.string(),
      invokeReturns: json.optional().describe('invoke() returns this value instead of the recording observer'),
      layerReturns: json.optional().describe("The observer's layer hook records its line, then returns this value"),
    })
    .describe('registry.instrument({ name, invoke }) with the recording observer of spec/README.md'),
  z
    .strictObject({ op: z.literal('chain.describe'), on: scope })
    .describe('describe(stage, { use }) and explain(stage, { use }) of that registry'),
  z
    .strictObject({
      op: z.literal('chain.invoke'),
      on: scope,
      stageAs: z
        .enum(['stage', 'input-token', 'forged'])
        .describe('What invoke() receives: the stage, its Input token, or a spread copy of the stage'),
      context: json,
      terminal: terminalSpec,
      consumer: z.enum(['iterate', 'run']).describe("'iterate': invoke(); 'run': run(), awaited"),
    })
    .describe("Invokes the stage with the begin request's signal and state binding and the collected per-invoke registrations"),
  z.strictObject({ op: z.literal('chain.next') }).describe('Pulls one event of the invoke'),
  z.strictObject({ op: z.literal('chain.return') }).describe("The invoke's return()"),
  z.strictObject({ op: z.literal('chain.throw') }).describe('The invoke\'s throw(error) with a new Error("consumer stop")'),
  z.strictObject({ op: z.literal('chain.asyncDispose') }).describe("The invoke's [Symbol.asyncDispose]()"),
  z.strictObject({ op: z.literal('chain.abort'), reason: z.string() }).describe("Aborts the invoke's signal with this reason"),
  z
    .strictObject({ op: z.literal('chain.end') })
    .describe('Calls every next function a keepNext step kept, recording late:<error>, and reports what the case left'),
] as const;

/** Every request the runner sends. */
export const protocolRequest = z
  .union([
    helloRequest,
    ...chainRequests,
    z.strictObject({ op: z.literal('reliability.run'), case: ReliabilityCaseSchema }).describe('Runs one reliability scenario'),
    z.strictObject({ op: z.literal('agent.run'), case: agentCase }).describe('Runs one agent case'),
  ])
  .and(z.object({ id: z.number().int().nonnegative().describe('Echoed by the reply') }));

const trace = z.array(z.string()).optional().describe('The lines recorded into the trace since the previous reply, in order');
const withError = { error: errorReport.optional().describe('The error the call threw or rejected with'), trace };

/** The model calls of a scripted model. */
const modelCalls = z.array(
  z.strictObject({
    systemPrompt: z.string(),
    systemBlocks: json,
    messageCount: z.number().int(),
    lastMessage: json.optional(),
    state: json,
    toolNames: z.array(z.string()).optional(),
  }),
);

/** A run of an agent case, as a port observed it. */
export const agentRunObservation = z.strictObject({
  error: errorReport.optional().describe('The error the run rejected with'),
  stopReason: z
    .string()
    .optional()
    .describe("The run's stop reason: that of its last event when it is an agentResult, else that of its last modelResult"),
  lastEventType: z.string().optional().describe('The type of the last event'),
  interrupts: json.optional().describe("The agentResult's interrupts"),
  usage: json.optional().describe("The agentResult's usage"),
  stoppedBy: json.optional().describe("The agentResult's stoppedBy, when it has one"),
  middlewareUsage: json.optional().describe('With an agentResult: its middlewareUsage, null when it has none'),
  compressed: z
    .array(z.strictObject({ replaced: z.number().int(), messages: z.number().int(), tokens: z.number(), maxTokens: z.number() }))
    .optional()
    .describe('Each contextCompressed event: the counts of its replaced and new messages, and its tokens and maxTokens'),
  eventTypes: z.array(z.string()).describe('The type of every event'),
  invocationState: json.optional().describe('The invocation state object given to the run, after it; absent when the run gave none'),
  frozen: z.boolean().optional().describe('Only when the run expects frozen: the check that key describes'),
});

/** One finished span of a traced agent case, as a port observed it. */
const observedSpan = z.strictObject({
  name: z.string(),
  parent: z.string().nullable().describe("The parent span's name; null for a span without a parent"),
  kind: z.string().describe("The span kind: 'internal', 'client', or the name of another"),
  status: z.string().describe("'error' when the status is ERROR, else 'unset'"),
  exception: z.string().optional().describe('The message of its first exception event; absent when it has none'),
  exceptions: z.number().int().optional().describe('Only when it has more than one exception event: how many'),
  attributes: z.record(z.string(), json).describe("Its attributes named 'gen_ai.*', 'error.type' and 'staged.interrupted'"),
});

/** An agent case as a port observed it. */
export const agentObservation = z.strictObject({
  runs: z.array(agentRunObservation),
  history: z.array(json).describe('The history after the runs'),
  modelState: json.optional().describe('The model state after the runs'),
  toolCalls: z.array(z.strictObject({ name: z.string(), input: json })),
  modelCalls: modelCalls.describe(
    "Each model call's request (systemPrompt, systemBlocks, the number of messages, the last message, the names of its tool specs) and the model's state snapshot",
  ),
  childModelCalls: z
    .record(z.string(), modelCalls)
    .optional()
    .describe("By sub-agent name: the calls of the sub-agent's scripted model, as modelCalls"),
  observations: z.array(z.string()),
  pendingInterrupts: z.array(z.string()).optional().describe('Ids of the pending interrupts'),
  callerObjectsUnfrozen: z.boolean().optional().describe('Only when the case expects callerObjectsUnfrozen'),
  snapshot: json.optional().describe('Only when the case expects snapshot: the snapshot of the conversation state after the runs'),
  agentUsage: json.optional().describe('Only when the case expects agentUsage: the token counts of the runs the conversation kept'),
  explain: z
    .record(z.string(), z.string())
    .optional()
    .describe("Only when the case expects explain: registry.explain(stage) of the loop's registry after the runs, for each stage it lists"),
  spans: z
    .array(observedSpan)
    .optional()
    .describe('Only when the case traces (agent.tracing): every span of every run, in the order they end'),
  aiSdkCalls: z
    .array(
      z.strictObject({
        prompt: json.optional(),
        tools: json.optional(),
        toolChoice: json.optional(),
        settings: json,
        aborted: z.boolean().optional(),
      }),
    )
    .optional()
    .describe(
      'Only for an AI SDK case (agent.aiSdk): what each doStream call of the scripted language model received, in order (settings: every other key of its options but abortSignal; aborted: whether its abortSignal was aborted once the runs ended)',
    ),
});

/** The reply to each request, by op (besides the failure reply every request may get). */
export const protocolReplies = {
  hello: z
    .strictObject({
      protocol: z.number().int().describe('The protocol version the port speaks'),
      name: z.string().describe('The implementation, for reports'),
      kinds: z.array(kind).describe('The kinds of case it runs'),
      builtins: z.array(z.string()).optional().describe('The built-in middleware chain.use provides (section 4)'),
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
    warnings: z.array(z.strictObject({ code: z.string(), id: z.string(), handler: z.string() })),
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
/** An error as a port reports it. */
export type ErrorReport = z.infer<typeof errorReport>;
/** An agent case as observed. */
export type AgentObservation = z.infer<typeof agentObservation>;
/** One run of an agent case as observed. */
export type AgentRunObservation = z.infer<typeof agentRunObservation>;
/** A kind of case. */
export type CaseKind = z.infer<typeof kind>;

/** Omit over each member of a union. */
type DistributiveOmit<T, TKey extends PropertyKey> = T extends unknown ? Omit<T, TKey> : never;

/** The JSON Schema committed as `spec/protocol.schema.json`: one object whose properties are the request line and the reply of each op. */
export function protocolJsonSchema(): unknown {
  const catalogue = z.strictObject({
    request: protocolRequest.describe('A request line'),
    failure: failureReply,
    replies: z.strictObject(protocolReplies).describe("The reply line of each op (with the request's id added)"),
  });
  return {
    ...(z.toJSONSchema(catalogue, { io: 'input', unrepresentable: 'any', reused: 'ref' }) as object),
    title: 'staged-middleware conformance protocol',
    description:
      'Not a message itself: #/properties/request describes every request line, #/properties/replies/properties/<op> the reply to a request of that op, and #/properties/failure the reply of a request a port could not carry out. Lines are JSON objects, one per line, UTF-8.',
  };
}
