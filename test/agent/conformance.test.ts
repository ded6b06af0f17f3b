/**
 * Runs the agent conformance cases (`spec/cases/agent-*.json`) against the
 * reference agent. Each case is validated by `case-schema.ts` first.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, type SystemContentBlock } from '../../src/index';
import {
  Agent,
  AgentStreamStage,
  CompressContextStage,
  ExecuteToolStage,
  InvokeModelStage,
  MemorySessionStore,
  TurnStage,
  type AgentEvent,
  type AgentOptions,
  type AgentSession,
  type AgentSnapshot,
  type Message,
  type SessionStore,
} from '../../src/agent/index';
import { ScriptedModel } from '../../src/testing/index';
import { buildModel, buildTool, register, type World } from './case-doubles';
import { buildBundle } from './case-middleware';
import { agentCase, agentCaseJsonSchema, type AgentCase } from './case-schema';

const casesDirectory = fileURLToPath(new URL('../../spec/cases', import.meta.url));
const files = readdirSync(casesDirectory).filter((file) => file.startsWith('agent-') && file.endsWith('.json')).sort();

async function runCase(testCase: AgentCase): Promise<void> {
  const world: World = { agent: undefined, observations: [], toolCalls: [], errors: new Map(), pending: [], abortRun: undefined, childModels: new Map() };
  // The agent's registry is a child, so a case can register bundles on a registry it inherits from.
  const parentRegistry = new MiddlewareRegistry();
  const registry = parentRegistry.child();
  for (const handler of testCase.handlers ?? []) register(world, registry, handler);
  for (const bundle of testCase.agent.bundles ?? []) (bundle.scope === 'parent' ? parentRegistry : registry).use(buildBundle(world, bundle));
  const { model, scripted } = buildModel(world, testCase.agent.model);
  const callerObjects: object[] = [];
  const systemPrompt = testCase.agent.systemPrompt === undefined ? undefined : structuredClone(testCase.agent.systemPrompt);
  const messages = structuredClone(testCase.agent.messages ?? []) as unknown as Message[];
  const modelState = structuredClone(testCase.agent.modelState ?? {});
  callerObjects.push(messages, modelState, ...messages);
  if (typeof systemPrompt === 'object') callerObjects.push(systemPrompt, ...systemPrompt);
  const agentOptions: AgentOptions = {
    model,
    registry,
    tools: (testCase.agent.tools ?? []).map((tool) => buildTool(world, tool)),
    ...(systemPrompt === undefined ? {} : { systemPrompt: systemPrompt as SystemContentBlock[] | string }),
    ...(testCase.agent.name === undefined ? {} : { name: testCase.agent.name }),
    ...(testCase.agent.session === true ? { session: { store: recordingStore(world), id: 'case' } } : {}),
    ...(testCase.agent.inheritTools === undefined ? {} : { inheritTools: testCase.agent.inheritTools }),
  };
  let agent = new Agent({ ...agentOptions, messages, modelState });
  world.agent = agent;

  for (const [index, run] of testCase.runs.entries()) {
    const invocationState = run.invocationState === undefined ? undefined : structuredClone(run.invocationState);
    const input = run.input === undefined ? undefined : structuredClone(run.input);
    if (typeof input === 'object') callerObjects.push(input, ...(input as object[]));
    if (run.inputDefect !== undefined) spoil(input as unknown as Message[], run.inputDefect);
    const controller = new AbortController();
    world.abortRun = run.signal === 'abortable' ? () => controller.abort('aborted by the case') : undefined;
    const signal = run.signal === 'aborted' ? AbortSignal.abort('aborted before start') : run.signal === 'abortable' ? controller.signal : undefined;
    const options = {
      ...(invocationState === undefined ? {} : { invocationState }),
      ...(signal === undefined ? {} : { signal }),
      ...(run.use === undefined ? {} : { use: run.use.map((bundle) => buildBundle(world, bundle)) }),
    };
    const events: AgentEvent[] = [];
    let failure: unknown;
    let failed = false;
    try {
      if (run.restore !== undefined) {
        agent = await restored(agent, agentOptions, run.restore, run.snapshotPatch);
        world.agent = agent;
      }
      const stream = agent.stream(input as string | Message[] | undefined, run.resume === undefined ? options : { ...options, interruptResponses: run.resume });
      for await (const event of stream) events.push(event);
    } catch (error) {
      failed = true;
      failure = error;
    }
    const expected = run.expect ?? {};
    const label = `run ${index + 1}`;
    if (expected.error !== undefined) {
      expect(failed, `${label} rejects`).toEqual(true);
      const { message, messageIncludes, ...fields } = expected.error;
      if (Object.keys(fields).length > 0) {
        const error = failure as MiddlewareError;
        const seen = { code: error.code, stage: error.stage, phase: error.phase, handler: error.handler };
        expect(Object.fromEntries(Object.keys(fields).map((key) => [key, seen[key as keyof typeof seen]])), label).toEqual(fields);
        expect(MiddlewareError.isInstance(error), label).toEqual(true);
      }
      if (messageIncludes !== undefined) expect((failure as Error).message, label).toContain(messageIncludes);
      if (message !== undefined) expect(failure, label).toBe(world.errors.get(message));
      continue;
    }
    if (failed) throw failure;
    const result = events.at(-1);
    expect(result?.type, label).toEqual('agentResult');
    if (result?.type !== 'agentResult') continue;
    if (expected.stopReason !== undefined) expect(result.stopReason, label).toEqual(expected.stopReason);
    if (expected.interrupts !== undefined) expect(result.interrupts, label).toEqual(expected.interrupts);
    if (expected.usage !== undefined) expect(result.usage, label).toEqual(expected.usage);
    if (expected.stoppedBy !== undefined) expect(result.stoppedBy, label).toEqual(expected.stoppedBy);
    if (expected.eventTypes !== undefined) expect(events.map((event) => event.type), label).toEqual(expected.eventTypes);
    if (expected.invocationState !== undefined) expect(invocationState, label).toEqual(expected.invocationState);
    if (expected.frozen !== undefined) expect(frozenAfter(agent, result, events), label).toEqual(expected.frozen);
    if (expected.middlewareUsage !== undefined) expect(result.middlewareUsage ?? null, label).toEqual(expected.middlewareUsage);
    if (expected.compressed !== undefined) {
      const compressed = events.flatMap((event) => (event.type === 'contextCompressed' ? [{ replaced: event.replaced.length, messages: event.messages.length, tokens: event.tokens, maxTokens: event.maxTokens }] : []));
      expect(compressed, label).toEqual(expected.compressed);
    }
  }
  await Promise.all(world.pending);

  const expected = testCase.expect ?? {};
  if (expected.snapshot !== undefined) expect(agent.snapshot(), 'snapshot').toEqual(expected.snapshot);
  if (expected.agentUsage !== undefined) expect(agent.usage, 'agent usage').toEqual(expected.agentUsage);
  if (expected.history !== undefined) expect(agent.messages, 'history').toEqual(expected.history);
  if (expected.modelState !== undefined) expect(agent.modelState, 'model state').toEqual(expected.modelState);
  if (expected.toolCalls !== undefined) expect(world.toolCalls, 'tool calls').toEqual(expected.toolCalls);
  if (expected.observations !== undefined) expect(world.observations, 'observations').toEqual(expected.observations);
  if (expected.pendingInterrupts !== undefined) expect(agent.pendingInterrupts.map((interrupt) => interrupt.id), 'pending interrupts').toEqual(expected.pendingInterrupts);
  if (expected.callerObjectsUnfrozen === true) expect(callerObjects.map((object) => Object.isFrozen(object)), 'caller objects frozen').toEqual(callerObjects.map(() => false));
  if (expected.modelCalls !== undefined) compareCalls(scripted, expected.modelCalls, 'model call');
  for (const [name, calls] of Object.entries(expected.childModelCalls ?? {})) compareCalls(world.childModels.get(name) as ScriptedModel, calls, `${name} model call`);
  for (const [stage, text] of Object.entries(expected.explain ?? {})) expect(registry.explain(stages[stage as keyof typeof stages]), `explain ${stage}`).toEqual(text);
}

const stages = { agentStream: AgentStreamStage, invokeModel: InvokeModelStage, executeTool: ExecuteToolStage, turn: TurnStage, compressContext: CompressContextStage } as const;

/** Compares what a scripted model received with the listed keys of each expected call. */
function compareCalls(scripted: ScriptedModel, expected: NonNullable<NonNullable<AgentCase['expect']>['modelCalls']>, label: string): void {
  expect(scripted.calls.length, `${label}s`).toEqual(expected.length);
  expected.forEach((call, index) => {
    const actual = scripted.calls[index];
    const view: Record<string, unknown> = {};
    if (call.systemPrompt !== undefined) view.systemPrompt = actual?.request.systemPrompt;
    if (call.systemBlocks !== undefined) view.systemBlocks = actual?.request.systemBlocks;
    if (call.messageCount !== undefined) view.messageCount = actual?.request.messages.length;
    if (call.lastMessage !== undefined) view.lastMessage = actual?.request.messages.at(-1);
    if (call.state !== undefined) view.state = actual?.state;
    if (call.toolNames !== undefined) view.toolNames = actual?.request.toolSpecs.map((spec) => spec.name);
    expect(view, `${label} ${index + 1}`).toEqual(call);
  });
}

/** A session store in memory that observes `save <messages> messages[ halted]` for each snapshot saved. */
function recordingStore(world: World): SessionStore {
  const store = new MemorySessionStore();
  return {
    load: (id) => store.load(id),
    save: (id, snapshot) => {
      world.observations.push(`save ${snapshot.messages.length} messages${snapshot.halted === null ? '' : ' halted'}`);
      store.save(id, snapshot);
    },
  };
}

/** A new agent with the same options that goes on from the old one's state: its JSON snapshot (patched), or its session. */
async function restored(agent: Agent, options: AgentOptions, how: 'snapshot' | 'session', patch: Record<string, unknown> | undefined): Promise<Agent> {
  if (how === 'session') return Agent.fromSession(options as AgentOptions & { session: AgentSession });
  const snapshot = { ...(JSON.parse(JSON.stringify(agent.snapshot())) as Record<string, unknown>), ...patch } as unknown as AgentSnapshot;
  return new Agent({ ...options, snapshot });
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

/** Whether what the run handed out is frozen, and emptying its interrupts throws a TypeError. */
function frozenAfter(agent: Agent, result: AgentEvent, events: readonly AgentEvent[]): boolean {
  const made = events.filter((event) => event.type === 'modelResult' || event.type === 'toolResult' || event.type === 'agentResult');
  let refused = false;
  try {
    (result as unknown as { interrupts: unknown[] }).interrupts.shift();
  } catch (error) {
    refused = error instanceof TypeError;
  }
  return refused && [...made, agent.messages, agent.modelState, agent.pendingInterrupts].every(deeplyFrozen);
}

describe('agent conformance cases', () => {
  it('finds the agent case files', () => {
    expect(files.length).toBeGreaterThan(0);
  });

  describe.each(files)('%s', (file) => {
    const raw = JSON.parse(readFileSync(join(casesDirectory, file), 'utf8')) as unknown;
    const parsed = agentCase.safeParse(raw);

    it('matches the case schema and is named after its id', () => {
      expect(parsed.error?.issues ?? []).toEqual([]);
      expect(file).toEqual(`${parsed.data?.id}.json`);
    });

    it('holds when run against the reference agent', async () => {
      if (!parsed.success) throw new Error(`${file} does not match the case schema`);
      await runCase(parsed.data);
    });
  });
});

describe('spec sections 5, 5b and 5c', () => {
  it('has at least one agent case for every rule MW-100 to MW-179 it defines', () => {
    const spec = readFileSync(join(casesDirectory, '..', 'SPEC.md'), 'utf8');
    const defined = [...spec.matchAll(/^### (MW-1[0-7]\d) /gm)].map((match) => match[1] as string);
    const covered = new Set(files.flatMap((file) => (JSON.parse(readFileSync(join(casesDirectory, file), 'utf8')) as { rules: string[] }).rules));
    expect(defined.length).toBeGreaterThan(0);
    expect(defined.filter((rule) => !covered.has(rule))).toEqual([]);
  });
});

describe('agent-case.schema.json', () => {
  const committed = JSON.parse(readFileSync(join(casesDirectory, '..', 'agent-case.schema.json'), 'utf8')) as {
    required: string[];
    additionalProperties: boolean;
    properties: Record<string, unknown>;
  };

  it('matches the zod schema of the agent case format', () => {
    // Regenerate with: npx tsx test/agent/export-schema.ts
    expect(committed).toEqual(agentCaseJsonSchema());
  });

  it('states the whole agent format, closed to unknown keys', () => {
    expect([Object.keys(committed.properties), committed.required, committed.additionalProperties]).toEqual([
      ['id', 'description', 'rules', 'kind', 'agent', 'handlers', 'runs', 'expect'],
      ['id', 'description', 'rules', 'kind', 'agent', 'runs'],
      false,
    ]);
  });
});
