/**
 * The format of agent conformance cases (`spec/cases/agent-*.json`, `"kind": "agent"`):
 * a scripted model, scripted tools, handlers from a small vocabulary, one or
 * more runs, what must hold after them, and the capabilities of an agent
 * loop the case needs. `spec/agent-case.schema.json` is generated from it.
 */
import { z } from 'zod';
import { json } from './chain-case';

/**
 * What an agent loop can do beyond the base loop (model calls through
 * InvokeModelStage, tool calls through ExecuteToolStage, with the registry,
 * model and tools given, and a history to read afterwards). A case lists the
 * ones it needs in `needs`; a loop claims the ones it has.
 */
export const AGENT_CAPABILITIES = {
  systemPrompt: 'the loop takes a system prompt and puts it in every InvokeModelStage context (MW-109)',
  initialMessages: 'a conversation can start from given messages (MW-104)',
  modelState: 'the loop keeps a model state, readable and assignable, bound as the state of every InvokeModelStage invoke (MW-108)',
  invocationState: "a run takes the caller's invocation state and shares it with every handler and tool (MW-105)",
  rollback: 'a run that fails leaves the conversation and the model state as they were (MW-116)',
  agentStream:
    'a run is one AgentStreamStage invoke ending with an agentResult event (MW-103, MW-119), and what the loop hands out is frozen (MW-105)',
  interrupts:
    'tools and handlers can halt a run with interrupt(), one question or several at once, external tools halt it for the caller, interrupt events come as questions are raised, and a later run resumes it (MW-113, MW-114, MW-132, MW-133, MW-135)',
  cancel: "a run ends with stopReason 'cancelled' when cancelled or when its signal aborts (MW-115)",
  runChecks: 'a run copies and checks what it is given and refuses a second run while one is going (MW-106, MW-117)',
  turnControl:
    "the loop invokes TurnStage after each turn and acts on its decision, and a run stopped early (by a turn decision, stopReason 'stopped', or by an AgentStreamStage Wrap handler) keeps its input and completed turns (MW-125 – MW-128)",
  agentInterrupts:
    "the AgentStreamStage context's interrupt() halts the whole run, responses may be given with a fresh run's input, a run's responses live as long as the run and its resumes, and a question after the result is refused (MW-131, MW-134)",
  snapshots:
    'the conversation state is a versioned JSON snapshot a new conversation goes on from, saved to a session store (MW-136, MW-137)',
  agentView: 'the loop takes a name and gives every context it builds the same frozen agent view (MW-138)',
  agentMiddleware:
    "the loop runs the agent middleware of section 5c: it offers the model the tools bundles contribute under ToolsKey (a run's own bundles and inheritTools included), compresses its context through CompressContextStage when it exceeds the ContextBudgetKey budget and emits contextCompressed, and reports the model calls middleware made as the agentResult's middlewareUsage (MW-160 – MW-174)",
  aiSdk:
    "the implementation has the AI SDK adapter (MW-186 – MW-188): the loop runs on a model fromAiSdk made of the kit's scripted AI SDK language model, and gives the setup's toolChoice to every model call",
  tracing:
    "the loop's runs, model calls and tool calls are the AgentStreamStage, InvokeModelStage and ExecuteToolStage invokes whose contexts carry what the GenAI spans name (the agent view, the model, the tool use), so tracing its registry gives one span tree per run (MW-190 – MW-192)",
} as const;

/** One capability of an agent loop (see {@link AGENT_CAPABILITIES}). */
export type AgentCapability = keyof typeof AGENT_CAPABILITIES;

const capability = z.enum(Object.keys(AGENT_CAPABILITIES) as [AgentCapability, ...AgentCapability[]]);
const stopReason = z.enum(['endTurn', 'toolUse', 'maxTokens', 'stopSequence', 'contentFiltered', 'interrupt', 'cancelled', 'stopped']);
const usage = z.strictObject({ inputTokens: z.number(), outputTokens: z.number(), totalTokens: z.number() });
const systemBlocks = z.array(z.record(z.string(), json));

const cancelLater = z
  .enum(['agent', 'signal'])
  .describe(
    "Once the run waits on the call (a macrotask after it starts): 'agent' calls agent.cancel(), 'signal' aborts the run's signal (run signal: 'abortable')",
  );

/** One model call of the script. */
const turn = z
  .strictObject({
    text: z.string().optional().describe('Answer text (streamed word by word); with toolUses, text before the tool uses'),
    toolUses: z
      .array(z.strictObject({ name: z.string(), input: json, id: z.string().optional() }))
      .optional()
      .describe('Tool uses; the stop reason defaults to toolUse'),
    events: z.array(z.record(z.string(), json)).optional().describe('Raw stream events, instead of text/toolUses'),
    stopReason: stopReason.optional(),
    usage: usage.optional(),
    fail: z.string().optional().describe('The call throws new Error(fail) (after the events, if any)'),
    stateWrites: z.record(z.string(), json).optional().describe('Keys the model writes to its state draft'),
    stateDeletes: z.array(z.string()).optional().describe('Keys the model deletes from its state draft'),
    cancel: z.boolean().optional().describe('agent.cancel() is called when the call starts'),
    cancelLater: cancelLater.optional(),
    hang: z.boolean().optional().describe("After its events, the stream's next() never settles, whatever the signal does"),
    streamReturns: z
      .enum(['promise', 'null'])
      .optional()
      .describe(
        "The model's stream() returns a promise of the turn's stream (as an async method would), or null; such a call is not recorded in modelCalls",
      ),
    startAnotherRun: z
      .boolean()
      .optional()
      .describe('A second run is started when the call starts; its error code is observed as "second run: <code>"'),
  })
  .describe('One scripted model call');

/** An error a provider's client throws: an AI SDK `APICallError` when it has a status. */
const providerError = z
  .strictObject({
    message: z.string(),
    statusCode: z
      .number()
      .int()
      .optional()
      .describe("The HTTP status: the error carries an APICallError's properties, statusCode this status"),
    isRetryable: z
      .boolean()
      .optional()
      .describe("The error's isRetryable (by default what APICallError derives from the status: 408, 409, 429 and 5xx)"),
  })
  .describe('A provider error, kept by message so the run can be checked to reject with the very object');

/** One doStream call of the AI SDK model. */
const aiSdkResponse = z.union([
  z
    .strictObject({
      parts: z.array(z.record(z.string(), json)).describe('The stream parts of LanguageModelV3, sent as they are'),
      failWith: providerError.optional().describe('After the parts, an error part carrying this error'),
      hang: z.boolean().optional().describe('The stream stays open after the parts, until it is cancelled'),
      cancelLater: cancelLater.optional(),
    })
    .describe('doStream resolves to a stream of these parts; its cancellation is observed as "provider stream cancelled"'),
  z.strictObject({ error: providerError }).describe('doStream rejects with this error'),
]);

/** The agent's model as an AI SDK language model through fromAiSdk (MW-186 - MW-188). */
const aiSdkModel = z
  .strictObject({
    responses: z.array(aiSdkResponse).describe('The doStream calls in order'),
    settings: z.record(z.string(), json).optional().describe('fromAiSdk options.settings'),
  })
  .describe(
    "Instead of model: the kit's scripted AI SDK language model (LanguageModelV3) answering doStream calls in order, given to the loop as fromAiSdk(languageModel, { settings })",
  );

/** What one doStream call received: only the listed keys are compared. */
const aiSdkCall = z.strictObject({
  prompt: z.array(json).optional(),
  tools: z.array(json).optional(),
  toolChoice: json.optional(),
  settings: z.record(z.string(), json).optional().describe('Every other key of the call options, abortSignal excepted'),
  aborted: z.boolean().optional().describe('Whether the abortSignal it received was aborted once the runs ended'),
});

/** One scripted tool. */
const tool = z.strictObject({
  name: z.string(),
  outcomes: z
    .array(
      z.union([
        z.strictObject({ value: json }),
        z.strictObject({ error: z.string() }),
        z
          .strictObject({ returns: z.enum(['cycle', 'bigint', 'symbol', 'function', 'throwingGetter', 'throwingToJSON', 'tooDeep']) })
          .describe('Returns a value JSON cannot carry; see the runner'),
        z
          .strictObject({ throws: z.enum(['nullPrototype', 'messageGetterThrows', 'string', 'number', 'undefined']) })
          .describe('Throws a value that is no plain Error; see the runner'),
      ]),
    )
    .optional()
    .describe('Answers of calls 1, 2, ...; the last repeats; errors are new Error(message)'),
  interrupt: z
    .strictObject({ name: z.string(), reason: json.optional() })
    .optional()
    .describe('The tool calls interrupt() and returns the response'),
  interruptMany: z
    .array(z.strictObject({ name: z.string(), reason: json.optional() }))
    .optional()
    .describe('The tool asks these questions at once with interrupt([...]) and returns the array of responses'),
  observeSignal: z.boolean().optional().describe('Observes "tool <name> signal aborted=<bool>"'),
  cancelAgent: z.boolean().optional().describe('The tool calls agent.cancel() first'),
  cancelLater: cancelLater.optional(),
  hang: z.boolean().optional().describe('The call returns a promise that never settles, whatever the signal does'),
  external: z.boolean().optional().describe('An external tool: { spec } without run (the case resumes the run with its results)'),
  inputSchema: z
    .record(z.string(), json)
    .optional()
    .describe(
      'A tool made by defineTool (MW-185) whose input schema is this JSON Schema (the kit: z.fromJSONSchema); its calls record and answer the validated input',
    ),
});

const stageName = z.enum(['agentStream', 'invokeModel', 'executeTool', 'turn', 'compressContext']);

/** One handler from the vocabulary. */
const handler = z
  .strictObject({
    stage: stageName,
    phase: z.enum(['input', 'wrap', 'output']),
    do: z.enum([
      'appendSystemText',
      'replaceSystemPrompt',
      'pushMessage',
      'nextWithExtraMessage',
      'setModelState',
      'retry',
      'hedge',
      'setStopReason',
      'replaceText',
      'fail',
      'block',
      'approval',
      'observe',
      'observeFrozen',
      'observeFinally',
      'countInvocationState',
      'replaceInput',
      'respond',
      'passThrough',
      'action',
      'badResult',
      'stopAfter',
      'observeAgent',
      'gate',
      'lateInterrupt',
      'observeState',
      'errorsAsAnswers',
      'dropResult',
      'observeCode',
      'blockWithoutName',
      'liveRetry',
      'builtinRetry',
      'afterToolCall',
      'checkFinalAnswer',
      'keepLast',
      'observeCaller',
      'observeModelState',
      'convertToLlm',
      'observeCompressed',
    ]),
    text: z.string().optional(),
    value: json.optional(),
    when: z.enum(['before', 'after']).optional(),
    attempts: z.number().int().positive().optional(),
    pattern: z.string().optional(),
    replacement: z.string().optional(),
    message: z.string().optional(),
    tool: z.string().optional(),
    name: z.string().optional(),
    reason: json.optional(),
    presupplied: z.string().optional().describe('invocationState key holding a pre-supplied response'),
    action: z
      .strictObject({
        decision: z.string().optional(),
        inject: z.array(json).optional(),
        onRunEnd: z.array(json).optional(),
        reason: z.string().optional(),
      })
      .optional()
      .describe('turn.wrap.action: the turn action its decide function (named name) returns'),
    turns: z
      .array(z.number().int().positive())
      .optional()
      .describe('turn.wrap.action: the turn indexes it acts at (every turn when absent)'),
    spread: z.boolean().optional().describe('agentStream gate: asks through a spread copy of the context'),
    critical: z.array(z.string()).optional().describe('errorsAsAnswers: the messages of the errors that are critical'),
    id: z.string().optional().describe('The id the handler is registered with'),
    replace: z.boolean().optional().describe('Registered with replace: true'),
    patch: json
      .optional()
      .describe(
        'executeTool.output.afterToolCall: the patch its hook (named name) returns for the tool use whose id is tool (every one when absent); it observes "<name> <toolUseId>"',
      ),
    nonCritical: z.boolean().optional().describe('invokeModel.wrap.checkFinalAnswer: critical false'),
  })
  .describe('A handler; see the runner for what each "do" means');

/** A partial view of what the model received in one call. */
const modelCall = z.strictObject({
  systemPrompt: z.string().optional(),
  systemBlocks: systemBlocks.optional(),
  messageCount: z.number().int().nonnegative().optional(),
  lastMessage: json.optional(),
  state: json.optional(),
  toolNames: z.array(z.string()).optional().describe('The names of the tool specs of the request'),
});

/** A bundle of the agent middleware (section 5c) or of scripted tools. */
const bundle = z
  .strictObject({
    kind: z.enum(['tools', 'todoList', 'compaction', 'subagent', 'budget', 'throwing']),
    name: z.string().optional().describe("tools: the bundle's name; subagent: the tool's and child's name"),
    tools: z.array(tool).optional().describe("tools: the scripted tools it contributes; subagent: the child's tools"),
    maxTokens: z.number().optional().describe('compaction, budget: the budget'),
    keepRecent: z.number().int().nonnegative().optional().describe('compaction'),
    countMessages: z.boolean().optional().describe('compaction, budget: count one token per message instead of estimateTokens'),
    instructions: z.string().optional().describe('compaction: summarize.instructions'),
    description: z.string().optional().describe('subagent: the tool description (default "Delegates a task.")'),
    systemPrompt: z.string().optional().describe("subagent: the child's system prompt"),
    model: z.array(turn).optional().describe("subagent: the child's scripted model turns"),
    inherit: z.enum(['handlers', 'none']).optional().describe('subagent'),
    scope: z.enum(['agent', 'parent']).optional().describe("Where it is registered: the agent's registry (default) or its parent registry"),
  })
  .describe('A bundle registered with registry.use (throwing: its setup throws Error("setup failed"))');

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

/** One finished span, as a backend reads it (MW-190 – MW-192). */
const span = z
  .strictObject({
    name: z.string(),
    parent: z.string().nullable().describe("The parent span's name; null for a span without a parent"),
    kind: z.enum(['internal', 'client']),
    status: z.enum(['unset', 'error']),
    exception: z.string().optional().describe("The message of the span's exception event; absent when it has none (at most one)"),
    attributes: z
      .record(z.string(), json)
      .describe(
        "The span's attributes whose names start with 'gen_ai.', and 'error.type' and 'staged.interrupted' (the staged.* attributes of MW-093 are not compared)",
      ),
  })
  .describe('One span, in the order spans end');

/** An agent conformance case. */
export const agentCase = z.strictObject({
  id: z.string(),
  description: z.string(),
  rules: z
    .array(z.string().regex(/^MW-(1[0-9]|21)\d$/))
    .min(1)
    .describe('Rules of sections 5, 5b and 5c (MW-100 – MW-179), the providers and observability rules (MW-180 – MW-199) and MW-210'),
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
        .enum(['api', 'tracer'])
        .optional()
        .describe(
          "The registry traces with tracing() into a recording tracer: 'api' gives it the OpenTelemetry API too (no context manager registered), 'tracer' the tracer alone",
        ),
      session: z
        .boolean()
        .optional()
        .describe(
          "The agent saves to a session (id 'case') in a memory store that observes 'save <messages> messages[ halted]' for each snapshot",
        ),
      systemPrompt: z.union([z.string(), systemBlocks]).optional(),
      messages: z.array(json).optional(),
      modelState: z.record(z.string(), json).optional(),
      tools: z.array(tool).optional(),
      toolChoice: z.record(z.string(), json).optional().describe('options.toolChoice'),
      model: z.array(turn).optional().describe('The scripted model turns; exactly one of model and aiSdk'),
      aiSdk: aiSdkModel.optional(),
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
    })
    .optional(),
});

/** A parsed agent case. */
export type AgentCase = z.infer<typeof agentCase>;
/** One handler of a case. */
export type AgentCaseHandler = z.infer<typeof handler>;
/** One model turn of a case. */
export type AgentCaseTurn = z.infer<typeof turn>;
/** The AI SDK model of a case. */
export type AgentCaseAiSdk = z.infer<typeof aiSdkModel>;
/** One tool of a case. */
export type AgentCaseTool = z.infer<typeof tool>;
/** One bundle of a case. */
export type AgentCaseBundle = z.infer<typeof bundle>;

/** The JSON Schema committed as `spec/agent-case.schema.json`, for implementations in other languages. */
export function agentCaseJsonSchema(): unknown {
  return {
    ...(z.toJSONSchema(agentCase, { io: 'input', unrepresentable: 'any' }) as object),
    title: 'staged-middleware agent conformance case',
  };
}
