/**
 * What a port observed of an agent case, as zod schemas: each run, the spans
 * of a traced case, and what held after the runs. The runner compares the
 * parts the case expects.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { spanAttributes } from '../cases/agent-case';
import { json } from '../cases/case-base';
import { errorReport } from './error-report';

/** The model calls of a scripted model. */
const modelCalls = z.array(
  z.strictObject({
    systemPrompt: z.string(),
    systemBlocks: json,
    messageCount: z.number().int(),
    lastMessage: json.optional(),
    state: json
      .optional()
      .describe("The model state snapshot the call saw; absent when the loop binds none (a loop without the capability 'modelState')"),
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
  attributes: spanAttributes,
});

/** An agent case as a port observed it. */
export const agentObservation = z.strictObject({
  runs: z.array(agentRunObservation),
  history: z.array(json).describe('The history after the runs'),
  modelState: json.optional().describe('The model state after the runs'),
  toolCalls: z.array(z.strictObject({ name: z.string(), input: json })),
  modelCalls: modelCalls.describe(
    "Each model call's request (systemPrompt, systemBlocks, the number of messages, the last message, the names of its tool specs) and the model's state snapshot, when the loop binds one",
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
  journal: z
    .array(z.string())
    .optional()
    .describe("Only for a case with durable runs: the journal after the runs, as the case's expect.journal states it"),
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

/** An agent case as observed. */
export type AgentObservation = z.infer<typeof agentObservation>;
/** One run of an agent case as observed. */
export type AgentRunObservation = z.infer<typeof agentRunObservation>;
