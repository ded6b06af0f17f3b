/**
 * The format of agent conformance cases (`spec/cases/agent-*.json`, `"kind": "agent"`):
 * a scripted model, scripted tools, handlers from a small vocabulary, one or
 * more runs, what must hold after them, and the capabilities of an agent
 * loop the case needs. `spec/agent-case.schema.json` is generated from it.
 * The doubles are in `agent-doubles.ts`, the handlers and bundles in
 * `agent-handlers.ts`, the capabilities in `agent-capabilities.ts`.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { AGENT_CAPABILITIES, type AgentCapability } from './agent-capabilities';
import { aiSdkCall, aiSdkModel, stopReason, tool, turn, usage } from './agent-doubles';
import { bundle, handler, stageName } from './agent-handlers';
import { json } from './case-base';
import { namedDefinitions } from './schema-names';

const capability = z.enum(Object.keys(AGENT_CAPABILITIES) as [AgentCapability, ...AgentCapability[]]);
const systemBlocks = z.array(z.record(z.string(), json));

/** A partial view of what the model received in one call. */
const modelCall = z.strictObject({
  systemPrompt: z.string().optional(),
  systemBlocks: systemBlocks.optional(),
  messageCount: z.number().int().nonnegative().optional(),
  lastMessage: json.optional(),
  state: json.optional(),
  toolNames: z.array(z.string()).optional().describe('The names of the tool specs of the request'),
});

/** One run of the agent and what it must end with. */
const run = z.strictObject({
  input: z
    .union([z.string(), z.array(json)])
    .optional()
    .describe('User text or messages; absent on a resume'),
  resume: z
    .record(z.string(), json)
    .optional()
    .describe(
      'Interrupt responses by id, given as interruptResponses: with no input the run is a resume, with input they are given in advance',
    ),
  invocationState: z.record(z.string(), json).optional(),
  signal: z
    .enum(['aborted', 'abortable'])
    .optional()
    .describe("'aborted': run with an already-aborted signal; 'abortable': with a signal that cancelLater: 'signal' aborts"),
  restore: z
    .enum(['snapshot', 'session'])
    .optional()
    .describe(
      "Before the run, the agent is replaced by a new one with the same options going on from the old one's state: 'snapshot' from JSON.parse(JSON.stringify(agent.snapshot())) (with snapshotPatch merged in), 'session' by Agent.fromSession",
    ),
  snapshotPatch: z.record(z.string(), json).optional().describe("restore 'snapshot': keys replaced in the snapshot before it is restored"),
  use: z.array(bundle).optional().describe("The run's own bundles (options.use)"),
  durable: z
    .strictObject({
      process: z
        .number()
        .int()
        .positive()
        .describe(
          "The process the run runs in: a run whose process differs from the last durable run's kills that process's runner and starts the loop again, fresh from the setup, with a new runner on the case's journal (run id 'case')",
        ),
      killIn: z
        .string()
        .optional()
        .describe(
          "The process dies in this step (its function runs to its end, but nothing is recorded) or at this wait (before any answer); the run rejects with Error('process killed')",
        ),
      answers: z
        .record(z.string(), json)
        .optional()
        .describe('Values sent to the waits of these names when the run reaches them (observed as "wait <name>")'),
      corrupt: z
        .string()
        .optional()
        .describe('When the journal gives back the recorded value of this step, the runner resolves to { "step": <name> } instead'),
    })
    .optional()
    .describe('The run is a durable run over an in-memory step runner (MW-240 – MW-252); input and use as for any run, no resume'),
  inputDefect: z
    .enum(['cycle', 'throwingGetter'])
    .optional()
    .describe(
      "Changes the last block of the last input message: 'cycle' adds a key loop referring to that message, 'throwingGetter' an enumerable getter broken that throws Error('getter failed')",
    ),
  expect: z
    .strictObject({
      stopReason: stopReason.optional(),
      interrupts: z.array(json).optional(),
      usage: usage.optional(),
      error: z
        .strictObject({
          code: z.string().optional(),
          message: z.string().optional(),
          messageIncludes: z.string().optional().describe('A text the MiddlewareError message contains (a path, a hint a rule requires)'),
          stage: z.string().optional(),
          phase: z.string().optional(),
          handler: z.string().optional(),
        })
        .optional()
        .describe('The run rejects: a MiddlewareError code (and the listed fields), or the user error with this message (the same object)'),
      eventTypes: z.array(z.string()).optional(),
      invocationState: json.optional(),
      stoppedBy: json.optional().describe("The agent result's stoppedBy"),
      middlewareUsage: json.optional().describe("The agent result's middlewareUsage (null: absent)"),
      compressed: z
        .array(z.strictObject({ replaced: z.number().int(), messages: z.number().int(), tokens: z.number(), maxTokens: z.number() }))
        .optional()
        .describe('Each contextCompressed event of the run: the counts of its replaced and new messages, and its tokens and maxTokens'),
      frozen: z
        .boolean()
        .optional()
        .describe(
          "The run's agentResult, modelResult and toolResult events (a tool result's error excepted), agent.messages, agent.modelState and agent.pendingInterrupts are deeply frozen, and emptying the agentResult's interrupts throws a TypeError",
        ),
    })
    .optional(),
});

/** The attributes of a span as cases state them and ports report them (MW-190 – MW-192, MW-347). */
export const spanAttributes = z
  .record(z.string(), json)
  .describe(
    "The span's attributes whose names start with 'gen_ai.', and 'error.type', 'staged.interrupted', 'staged.agent.pending_approvals' and 'staged.agent.pending_external_calls', and 'staged.agent.reply_id' as 'uuid' when it is a UUID; the values of 'gen_ai.input.messages', 'gen_ai.output.messages' and the two staged.agent.pending_* attributes as the JSON values their text holds (the staged.* attributes of MW-093 are not compared)",
  );

/** One finished span, as a backend reads it (MW-190 – MW-192). */
const span = z
  .strictObject({
    name: z.string(),
    parent: z.string().nullable().describe("The parent span's name; null for a span without a parent"),
    kind: z.enum(['internal', 'client']),
    status: z.enum(['unset', 'error']),
    exception: z.string().optional().describe("The message of the span's exception event; absent when it has none (at most one)"),
    attributes: spanAttributes,
  })
  .describe('One span, in the order spans end');

/** An agent conformance case. */
export const agentCase = z.strictObject({
  id: z.string(),
  description: z.string(),
  rules: z
    .array(z.string().regex(/^MW-(1[0-9]|21|2[4-9]|3[0-5])\d$/))
    .min(1)
    .describe(
      'Rules of sections 5, 5b, 5c, 5d and 5e (MW-100 – MW-179, MW-270 – MW-299, MW-330 – MW-359), the providers and observability rules (MW-180 – MW-199), MW-210, the durable runs of section 7 (MW-240 – MW-269) and the rules of providers and own loops (MW-300 – MW-329)',
    ),
  kind: z.literal('agent'),
  needs: z
    .array(capability)
    .describe(
      'The capabilities of an agent loop the case needs beyond the base loop; a loop that does not claim one of them reports the case as not claimed',
    ),
  agent: z
    .strictObject({
      name: z.string().optional().describe("The agent's name (options.name)"),
      modelId: z.string().optional().describe("The model's modelId"),
      tracing: z
        .enum(['api', 'tracer', 'replies'])
        .optional()
        .describe(
          "The registry traces with tracing() and the agent kit's span conventions (genAiSpans) into a recording tracer: 'api' gives it the OpenTelemetry API too (no context manager registered), 'tracer' the tracer alone, 'replies' the tracer alone with genAiReplySpans instead",
        ),
      session: z
        .union([
          z.boolean(),
          z.strictObject({
            hangs: z
              .array(z.number().int().positive())
              .optional()
              .describe('The numbers (from 1) of the saves that return a promise that never settles, after observing them'),
            overwrittenBefore: z
              .array(z.number().int().positive())
              .optional()
              .describe('The numbers (from 1) of the saves before which another writer saves the session again (what it holds)'),
            deletedBefore: z
              .array(z.number().int().positive())
              .optional()
              .describe('The numbers (from 1) of the saves before which another writer deletes the session'),
          }),
        ])
        .optional()
        .describe(
          "The agent saves to a session (id 'case') in a memory store that observes 'save <messages> messages[ halted]' for each snapshot",
        ),
      maxTurns: z.number().int().positive().optional().describe("The agent's turn limit (options.maxTurns)"),
      systemPrompt: z.union([z.string(), systemBlocks]).optional(),
      messages: z.array(json).optional(),
      modelState: z.record(z.string(), json).optional(),
      tools: z.array(tool).optional(),
      toolChoice: z.record(z.string(), json).optional().describe('options.toolChoice'),
      model: z.array(turn).optional().describe('The scripted model turns; exactly one of model and aiSdk'),
      aiSdk: aiSdkModel.optional(),
      aiSdkMiddleware: z
        .array(handler)
        .optional()
        .describe(
          'Only with aiSdk: handlers registered on a registry of their own, run inside the AI SDK model by languageModelMiddleware(registry) around its doStream, as wrapLanguageModel runs it (MW-302, MW-303)',
        ),
      aiSdkTools: z
        .strictObject({
          handlers: z.array(handler).optional().describe('Registered on a registry of their own, in order'),
          approval: z.record(z.string(), json).optional().describe('options.approval, by tool name (true, false or a rule)'),
        })
        .optional()
        .describe(
          "The loop's tools as AI SDK tools wrapped by wrapAiSdkTools(registry of the handlers, tools, { approval }), called as the AI SDK's loop calls them (MW-304 – MW-308)",
        ),
      inheritTools: z.boolean().optional().describe('options.inheritTools'),
      bundles: z.array(bundle).optional().describe('Registered after the handlers, in order'),
    })
    .refine((agent) => (agent.model === undefined) !== (agent.aiSdk === undefined), 'give exactly one of model and aiSdk'),
  handlers: z.array(handler).optional(),
  runs: z.array(run).min(1),
  expect: z
    .strictObject({
      history: z.array(json).optional(),
      modelState: json.optional(),
      toolCalls: z.array(z.strictObject({ name: z.string(), input: json })).optional(),
      modelCalls: z.array(modelCall).optional(),
      observations: z.array(z.string()).optional(),
      pendingInterrupts: z.array(z.string()).optional(),
      callerObjectsUnfrozen: z
        .boolean()
        .optional()
        .describe('The input, initial messages, system prompt and model state the runner passed stay unfrozen'),
      snapshot: json.optional().describe('agent.snapshot() after the runs'),
      agentUsage: usage.optional().describe('agent.usage after the runs'),
      aiSdkCalls: z.array(aiSdkCall).optional().describe("The AI SDK model's doStream calls, in order"),
      explain: z.partialRecord(stageName, z.string()).optional().describe("registry.explain(stage) of the agent's registry after the runs"),
      childModelCalls: z
        .record(z.string(), z.array(modelCall))
        .optional()
        .describe("By sub-agent name: what its child's scripted model received, as modelCalls"),
      spans: z.array(span).optional().describe('Every span of every run (agent.tracing), in the order they end'),
      journal: z
        .array(z.string())
        .optional()
        .describe(
          "The durable runs' journal after the runs: 'step <name>' (with ' (attempts <k>)' when its function started k > 1 times), 'wait <name> = <JSON of its value>' or 'wait <name> (unanswered)'",
        ),
    })
    .optional(),
});

/** A parsed agent case. */
export type AgentCase = z.infer<typeof agentCase>;

/** The JSON Schema committed as `spec/agent-case.schema.json`, for implementations in other languages. */
export function agentCaseJsonSchema(): unknown {
  return {
    ...(z.toJSONSchema(agentCase, { io: 'input', unrepresentable: 'any', metadata: namedDefinitions() }) as object),
    title: 'staged-middleware agent conformance case',
  };
}
