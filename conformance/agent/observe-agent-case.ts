/**
 * Runs one agent case with an agent loop adapter and reports what it saw:
 * the side of the protocol's `agent.run` request a TypeScript loop needs no
 * port for. The runner compares the observation with the case's expectations.
 */
import { MiddlewareRegistry } from '../../src/core/index';
import {
  MemorySessionStore,
  type RevisionedSessionStore,
  type AgentEvent,
  type AgentSession,
  type AgentSnapshot,
  type Message,
  type ToolChoice,
  genAiReplySpans,
  genAiSpans,
} from '../../src/agent/index';
import { tracing } from '../../src/middleware/index';
import type { ScriptedModel } from '../../src/testing/index';
import type { AgentCase } from '../cases/agent-case';
import type { Json } from '../cases/case-base';
import { reportError } from '../library/chain-values';
import { recordingTracing, type RecordedSpan } from '../library/recording-tracer';
import type { AgentObservation, AgentRunObservation } from '../protocol/agent-observation';
import type { AgentLoopAdapter, AgentLoopSession, AgentLoopSetup } from './adapter';
import { aiSdkCallObservation, aiSdkLoopTools, buildAiSdkModel } from './ai-sdk-double';
import { buildModel, buildTool, type World } from './doubles';
import { CaseJournal } from './durable-double';
import { buildCaseBundle } from './defined-bundle';
import { TurnResultWatch } from './turn-results';
import { register, stages } from './vocabulary';

/** Runs every run of `testCase` on one session of `adapter`, then reads what the conversation holds. */
export async function observeAgentCase(testCase: AgentCase, adapter: AgentLoopAdapter): Promise<AgentObservation> {
  const world: World = {
    session: undefined,
    observations: [],
    toolCalls: [],
    errors: new Map(),
    pending: [],
    abortRun: undefined,
    childModels: new Map(),
    process: 0,
  };
  const journal = testCase.runs.some((run) => run.durable !== undefined) ? new CaseJournal() : undefined;
  // The loop's registry is a child, so a case can register bundles on a registry it inherits from.
  const parentRegistry = new MiddlewareRegistry();
  const registry = parentRegistry.child();
  const turnResults = new TurnResultWatch(registry);
  for (const handler of testCase.handlers ?? []) register(world, registry, handler);
  for (const bundle of testCase.agent.bundles ?? [])
    (bundle.scope === 'parent' ? parentRegistry : registry).use(await buildCaseBundle(world, bundle));
  let middleware: MiddlewareRegistry | undefined;
  if (testCase.agent.aiSdkMiddleware !== undefined) {
    middleware = new MiddlewareRegistry();
    for (const handler of testCase.agent.aiSdkMiddleware) register(world, middleware, handler);
  }
  const aiSdk = testCase.agent.aiSdk === undefined ? undefined : buildAiSdkModel(world, testCase.agent.aiSdk, middleware);
  const { model, scripted } =
    aiSdk === undefined
      ? buildModel(world, testCase.agent.model ?? [], testCase.agent.modelId)
      : { model: aiSdk.model, scripted: undefined };
  const caseTools = (testCase.agent.tools ?? []).map((tool) => buildTool(world, tool));
  const { aiSdkTools } = testCase.agent;
  let tools = caseTools;
  if (aiSdkTools !== undefined) {
    const toolRegistry = new MiddlewareRegistry();
    for (const handler of aiSdkTools.handlers ?? []) register(world, toolRegistry, handler);
    tools = aiSdkLoopTools(caseTools, toolRegistry, aiSdkTools.approval);
  }
  const spans = testCase.agent.tracing === undefined ? undefined : traced(registry, testCase.agent.tracing);
  const callerObjects: object[] = [];
  const systemPrompt = testCase.agent.systemPrompt === undefined ? undefined : structuredClone(testCase.agent.systemPrompt);
  const messages = testCase.agent.messages === undefined ? undefined : (structuredClone(testCase.agent.messages) as unknown as Message[]);
  const modelState = testCase.agent.modelState === undefined ? undefined : structuredClone(testCase.agent.modelState);
  callerObjects.push(...(messages === undefined ? [] : [messages, ...messages]), ...(modelState === undefined ? [] : [modelState]));
  if (typeof systemPrompt === 'object') callerObjects.push(systemPrompt, ...systemPrompt);
  // What a conversation restored later starts with too: the same doubles, registry and session, no messages or model state.
  const setup: AgentLoopSetup = {
    registry,
    model,
    tools,
    systemPrompt: systemPrompt,
    name: testCase.agent.name,
    session: sessionOf(world, testCase.agent.session),
    inheritTools: testCase.agent.inheritTools,
    toolChoice: testCase.agent.toolChoice as ToolChoice | undefined,
    maxTurns: testCase.agent.maxTurns,
  };
  let session = adapter.start({ ...setup, messages, modelState });
  world.session = session;

  const runs: AgentRunObservation[] = [];
  for (const run of testCase.runs) {
    const invocationState = run.invocationState === undefined ? undefined : structuredClone(run.invocationState);
    const input = run.input === undefined ? undefined : structuredClone(run.input);
    if (typeof input === 'object') callerObjects.push(input, ...(input as object[]));
    if (run.inputDefect !== undefined) spoil(input as unknown as Message[], run.inputDefect);
    const controller = new AbortController();
    world.abortRun =
      run.signal === 'abortable'
        ? () => {
            controller.abort('aborted by the case');
          }
        : undefined;
    const signal =
      run.signal === 'aborted' ? AbortSignal.abort('aborted before start') : run.signal === 'abortable' ? controller.signal : undefined;
    const events: AgentEvent[] = [];
    let error: AgentRunObservation['error'];
    let failure: unknown;
    turnResults.startRun();
    try {
      if (run.restore !== undefined) {
        session = await restored(adapter, setup, session, run.restore, run.snapshotPatch);
        world.session = session;
      }
      const use = run.use === undefined ? undefined : await Promise.all(run.use.map(async (bundle) => buildCaseBundle(world, bundle)));
      // A durable run in a new process: the loop starts again from the setup and replays the journal.
      if (run.durable !== undefined && journal !== undefined && world.process !== 0 && journal.isNewProcess(world, run.durable)) {
        session = adapter.start({ ...setup, messages, modelState });
        world.session = session;
      }
      const durable = run.durable === undefined || journal === undefined ? undefined : journal.runnerFor(world, run.durable);
      for await (const event of session.run({
        ...(durable === undefined ? {} : { durable }),
        input: input as string | Message[] | undefined,
        resume: run.resume,
        invocationState,
        signal,
        use,
      }))
        events.push(event);
    } catch (thrown) {
      failure = thrown;
      error = reportError(thrown, new Set(world.errors.values()));
    }
    turnResults.endRun(adapter.name, run.expect?.error !== undefined, failure);
    const current = session;
    runs.push(
      runObservation(events, error, invocationState, run.expect?.frozen === undefined ? undefined : () => frozenAfter(current, events)),
    );
  }
  await Promise.all(world.pending);

  const expected = testCase.expect ?? {};
  return {
    runs,
    history: session.messages as unknown as Json[],
    ...(session.modelState === undefined ? {} : { modelState: session.modelState as Json }),
    toolCalls: world.toolCalls as { name: string; input: Json }[],
    modelCalls: scripted === undefined ? [] : modelCallsOf(scripted),
    ...(world.childModels.size === 0
      ? {}
      : { childModelCalls: Object.fromEntries([...world.childModels].map(([name, child]) => [name, modelCallsOf(child)])) }),
    observations: world.observations,
    ...(session.pendingInterrupts === undefined ? {} : { pendingInterrupts: session.pendingInterrupts.map((interrupt) => interrupt.id) }),
    ...(expected.callerObjectsUnfrozen === undefined
      ? {}
      : { callerObjectsUnfrozen: callerObjects.every((object) => !Object.isFrozen(object)) }),
    ...(expected.snapshot === undefined || session.snapshot === undefined ? {} : { snapshot: session.snapshot() as unknown as Json }),
    ...(expected.agentUsage === undefined || session.usage === undefined ? {} : { agentUsage: session.usage as unknown as Json }),
    ...(expected.explain === undefined
      ? {}
      : {
          explain: Object.fromEntries(
            Object.keys(expected.explain).map((stage) => [stage, registry.explain(stages[stage as keyof typeof stages])]),
          ),
        }),
    ...(spans === undefined ? {} : { spans: spans.map(spanObservation) }),
    ...(aiSdk === undefined ? {} : { aiSdkCalls: aiSdk.calls.map(aiSdkCallObservation) }),
    ...(journal === undefined ? {} : { journal: journal.entries() }),
  };
}

/**
 * Instruments the registry with tracing and the agent kit's span conventions into a recording tracer ('api': with the
 * API stand-in too; 'replies': the conventions with the reply's attributes) and returns the spans as they end.
 */
function traced(registry: MiddlewareRegistry, how: 'api' | 'tracer' | 'replies'): RecordedSpan[] {
  const spans: RecordedSpan[] = [];
  const { tracer, api } = recordingTracing((span) => spans.push(span));
  const conventions = [how === 'replies' ? genAiReplySpans : genAiSpans];
  registry.instrument(tracing(how === 'api' ? { api, tracer, conventions } : { tracer, conventions }));
  return spans;
}

/** The attributes the cases compare besides `gen_ai.*`. */
const COMPARED = new Set(['error.type', 'staged.interrupted', 'staged.agent.pending_approvals', 'staged.agent.pending_external_calls']);
/** The attributes whose values are JSON text (MW-347), compared as the values they hold: key order is no part of them. */
const JSON_TEXT = new Set([
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'staged.agent.pending_approvals',
  'staged.agent.pending_external_calls',
]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/u;

/** A span's attributes as the case format compares them; a reply id is `'uuid'` when it is one. */
function comparedAttributes(attributes: Readonly<Record<string, unknown>>): Record<string, Json> {
  const compared: Record<string, Json> = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'staged.agent.reply_id') compared[key] = typeof value === 'string' && UUID.test(value) ? 'uuid' : (value as Json);
    else if (JSON_TEXT.has(key)) compared[key] = parsedText(value);
    else if (key.startsWith('gen_ai.') || COMPARED.has(key)) compared[key] = value as Json;
  }
  return compared;
}

/** The value JSON text holds, or the value itself when it is no JSON text. */
function parsedText(value: unknown): Json {
  if (typeof value !== 'string') return value as Json;
  try {
    return JSON.parse(value) as Json;
  } catch {
    return value;
  }
}

/** A span as the case format states it: only the attributes the cases compare, and a count when it has more than one exception event. */
function spanObservation(span: RecordedSpan): NonNullable<AgentObservation['spans']>[number] {
  const [exception] = span.exceptions;
  return {
    name: span.name,
    parent: span.parent,
    kind: span.kind,
    status: span.status,
    ...(exception === undefined ? {} : { exception }),
    ...(span.exceptions.length > 1 ? { exceptions: span.exceptions.length } : {}),
    attributes: comparedAttributes(span.attributes),
  };
}

/** What a scripted model received in each call. */
function modelCallsOf(scripted: ScriptedModel): AgentObservation['modelCalls'] {
  return scripted.calls.map((call) => ({
    systemPrompt: call.request.systemPrompt,
    systemBlocks: call.request.systemBlocks as unknown as Json,
    messageCount: call.request.messages.length,
    ...(call.request.messages.length === 0 ? {} : { lastMessage: call.request.messages.at(-1) as unknown as Json }),
    // A loop without the capability modelState binds none: the call saw no state, and the observation has none.
    ...(call.state === undefined ? {} : { state: call.state as Json }),
    toolNames: call.request.toolSpecs.map((spec) => spec.name),
  }));
}

/** The session a case's `agent.session` asks for, if any. */
function sessionOf(world: World, session: AgentCase['agent']['session']): AgentSession | undefined {
  if (session === undefined || session === false) return undefined;
  return { store: recordingStore(world, session === true ? {} : session), id: 'case' };
}

/**
 * A session store in memory, keeping revisions (MW-253), that observes `save <messages> messages[ halted]` for
 * each snapshot saved; the saves whose numbers (from 1) `hangs` lists return a promise that never settles instead
 * of keeping the snapshot, and before those `overwrittenBefore` (`deletedBefore`) lists another writer saves the
 * session again (deletes it).
 */
function recordingStore(
  world: World,
  script: {
    readonly hangs?: readonly number[] | undefined;
    readonly overwrittenBefore?: readonly number[] | undefined;
    readonly deletedBefore?: readonly number[] | undefined;
  },
): RevisionedSessionStore {
  const store = new MemorySessionStore();
  let saves = 0;
  return {
    load: (id) => store.load(id),
    loadRecord: (id) => store.loadRecord(id),
    delete: (id, options) => store.delete(id, options),
    save: (id, snapshot, options) => {
      world.observations.push(`save ${snapshot.messages.length} messages${snapshot.halted === null ? '' : ' halted'}`);
      const save = ++saves;
      if (script.hangs?.includes(save) === true) return new Promise<string>(() => undefined);
      if (script.overwrittenBefore?.includes(save) === true) store.save(id, store.load(id) ?? snapshot);
      if (script.deletedBefore?.includes(save) === true) store.delete(id);
      return store.save(id, snapshot, options);
    },
  };
}

/** A new conversation, with the same setup, that goes on from the old one's state: its JSON snapshot (patched), or its session. */
async function restored(
  adapter: AgentLoopAdapter,
  setup: AgentLoopSetup,
  session: AgentLoopSession,
  how: 'snapshot' | 'session',
  patch: Record<string, unknown> | undefined,
): Promise<AgentLoopSession> {
  if (how === 'session') {
    if (adapter.fromSession === undefined) throw new Error(`${adapter.name} claims snapshots but has no fromSession().`);
    return adapter.fromSession(setup);
  }
  if (session.snapshot === undefined) throw new Error(`${adapter.name} claims snapshots but its session has no snapshot().`);
  const snapshot = { ...(JSON.parse(JSON.stringify(session.snapshot())) as Record<string, unknown>), ...patch } as unknown as AgentSnapshot;
  return adapter.start({ ...setup, snapshot });
}

/** What one run showed; `frozen` runs its check only when the case expects it, since the check tries to change the result. */
function runObservation(
  events: readonly AgentEvent[],
  error: AgentRunObservation['error'],
  invocationState: Record<string, unknown> | undefined,
  frozen: (() => boolean) | undefined,
): AgentRunObservation {
  const last = events.at(-1);
  const result = last?.type === 'agentResult' ? last : undefined;
  const modelResult = [...events].reverse().find((event) => event.type === 'modelResult');
  const stopReason = result?.stopReason ?? (modelResult?.type === 'modelResult' ? modelResult.stopReason : undefined);
  return {
    ...(error === undefined ? {} : { error }),
    ...(stopReason === undefined ? {} : { stopReason }),
    ...(last === undefined ? {} : { lastEventType: last.type }),
    ...(result === undefined ? {} : { interrupts: result.interrupts as unknown as Json, usage: result.usage as unknown as Json }),
    ...(result?.stoppedBy === undefined ? {} : { stoppedBy: result.stoppedBy as unknown as Json }),
    ...(result === undefined ? {} : { middlewareUsage: (result.middlewareUsage ?? null) as unknown as Json }),
    compressed: events.flatMap((event) =>
      event.type === 'contextCompressed'
        ? [{ replaced: event.replaced.length, messages: event.messages.length, tokens: event.tokens, maxTokens: event.maxTokens }]
        : [],
    ),
    eventTypes: events.map((event) => event.type),
    // A copy as the run left it: a resume without invocation state goes on with the halted run's very object (MW-114).
    ...(invocationState === undefined ? {} : { invocationState: structuredClone(invocationState) as Json }),
    ...(frozen === undefined ? {} : { frozen: frozen() }),
  };
}

/** Changes the last block of the last input message as `inputDefect` says. */
function spoil(input: Message[], defect: 'cycle' | 'throwingGetter'): void {
  const message = input.at(-1) as Message;
  const block = message.content.at(-1) as object;
  if (defect === 'cycle') (block as Record<string, unknown>).loop = message;
  else {
    Object.defineProperty(block, 'broken', {
      enumerable: true,
      get() {
        throw new Error('getter failed');
      },
    });
  }
}

/** True when every array and plain object inside the value is frozen (the keys a tool result's error sits under are not walked). */
function deeplyFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (!Array.isArray(value) && prototype !== Object.prototype && prototype !== null) return true;
  return Object.isFrozen(value) && Object.entries(value).every(([key, part]) => key === 'error' || deeplyFrozen(part));
}

/** Whether what the run handed out is frozen, and emptying its interrupts throws a TypeError (MW-105). */
function frozenAfter(session: AgentLoopSession, events: readonly AgentEvent[]): boolean {
  const made = events.filter((event) => event.type === 'modelResult' || event.type === 'toolResult' || event.type === 'agentResult');
  const result = events.at(-1);
  let refused = false;
  try {
    (result as unknown as { interrupts: unknown[] }).interrupts.shift();
  } catch (error) {
    refused = error instanceof TypeError;
  }
  return refused && [...made, session.messages, session.modelState, session.pendingInterrupts].every(deeplyFrozen);
}
