/**
 * The doubles of an agent case, as zod schemas: the scripted model's calls,
 * the AI SDK language model standing in for it (its responses and what each
 * call received), and the scripted tools.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { json } from './case-base';

/** Why a model call stopped. */
export const stopReason = z.enum([
  'endTurn',
  'toolUse',
  'maxTokens',
  'stopSequence',
  'contentFiltered',
  'interrupt',
  'cancelled',
  'stopped',
  'maxTurns',
]);

/** Token counts. */
export const usage = z.strictObject({ inputTokens: z.number(), outputTokens: z.number(), totalTokens: z.number() });

const cancelLater = z
  .enum(['agent', 'signal'])
  .describe(
    "Once the run waits on the call (a macrotask after it starts): 'agent' calls agent.cancel(), 'signal' aborts the run's signal (run signal: 'abortable')",
  );

/** One model call of the script. */
export const turn = z
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
    repeat: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('The turn answers this many consecutive calls, each as if it were written out again (default 1)'),
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
export const aiSdkModel = z
  .strictObject({
    specificationVersion: z
      .string()
      .optional()
      .describe("The language model's specificationVersion: 'v3' (default) or 'v4' (MW-300); any other is refused by fromAiSdk (MW-301)"),
    responses: z.array(aiSdkResponse).describe('The doStream calls in order'),
    settings: z.record(z.string(), json).optional().describe('fromAiSdk options.settings'),
  })
  .describe(
    "Instead of model: the kit's scripted AI SDK language model (LanguageModelV3, or LanguageModelV4) answering doStream calls in order, given to the loop as fromAiSdk(languageModel, { settings })",
  );

/** What one doStream call received: only the listed keys are compared. */
export const aiSdkCall = z.strictObject({
  prompt: z.array(json).optional(),
  tools: z.array(json).optional(),
  toolChoice: json.optional(),
  settings: z.record(z.string(), json).optional().describe('Every other key of the call options, abortSignal excepted'),
  aborted: z.boolean().optional().describe('Whether the abortSignal it received was aborted once the runs ended'),
});

/** One scripted tool. */
export const tool = z.strictObject({
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
          .strictObject({ throws: z.enum(['nullPrototype', 'messageGetterThrows', 'string', 'number', 'undefined', 'bigint']) })
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
  observeKey: z.boolean().optional().describe('Observes "tool <name> key <idempotencyKey>" ("none" when its run context has none), MW-249'),
  cancelAgent: z.boolean().optional().describe('The tool calls agent.cancel() first'),
  cancelLater: cancelLater.optional(),
  hang: z.boolean().optional().describe('The call returns a promise that never settles, whatever the signal does'),
  external: z.boolean().optional().describe('An external tool: { spec } without run (the case resumes the run with its results)'),
  needsApproval: z.boolean().optional().describe("The tool's needsApproval (MW-287)"),
  inputSchema: z
    .record(z.string(), json)
    .optional()
    .describe(
      'A tool made by defineTool (MW-185) whose input schema is this JSON Schema (the kit: z.fromJSONSchema); its calls record and answer the validated input',
    ),
});

/** One model turn of a case. */
export type AgentCaseTurn = z.infer<typeof turn>;
/** The AI SDK model of a case. */
export type AgentCaseAiSdk = z.infer<typeof aiSdkModel>;
/** One tool of a case. */
export type AgentCaseTool = z.infer<typeof tool>;
