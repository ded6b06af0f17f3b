/**
 * Runs the agent conformance cases (`spec/cases/agent-*.json`) against the
 * reference agent. Each case is validated by `case-schema.ts` first.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { castDraft, produce } from 'immer';
import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, type SystemContentBlock } from '../../src/index';
import {
  Agent,
  AgentStreamStage,
  ExecuteToolStage,
  InvokeModelStage,
  ScriptedModel,
  ScriptedTool,
  failingTurn,
  textTurn,
  toolUseTurn,
  type AgentEvent,
  type Message,
  type ModelStreamEvent,
  type ScriptedTurn,
  type StopReason,
  type Usage,
} from '../../src/agent/index';
import { agentCase, type AgentCase, type AgentCaseHandler, type AgentCaseTool, type AgentCaseTurn } from './case-schema';

const casesDirectory = fileURLToPath(new URL('../../spec/cases', import.meta.url));
const files = readdirSync(casesDirectory).filter((file) => file.startsWith('agent-') && file.endsWith('.json')).sort();

/** Everything a case's doubles and handlers record. */
interface World {
  agent: Agent | undefined;
  readonly observations: string[];
  readonly toolCalls: { name: string; input: unknown }[];
  readonly errors: Map<string, Error>;
  readonly pending: Promise<unknown>[];
}

function userError(world: World, message: string): Error {
  const error = new Error(message);
  world.errors.set(message, error);
  return error;
}

function buildTurn(world: World, turn: AgentCaseTurn): ScriptedTurn {
  let scripted: ScriptedTurn;
  const options = { ...(turn.usage === undefined ? {} : { usage: turn.usage as Usage }), ...(turn.stopReason === undefined ? {} : { stopReason: turn.stopReason as StopReason }) };
  if (turn.events !== undefined) scripted = { events: turn.events as unknown as ModelStreamEvent[] };
  else if (turn.toolUses !== undefined) {
    scripted = toolUseTurn(
      turn.toolUses.map((toolUse) => ({ name: toolUse.name, input: toolUse.input, ...(toolUse.id === undefined ? {} : { toolUseId: toolUse.id }) })),
      { ...options, ...(turn.text === undefined ? {} : { text: turn.text }) },
    );
  } else if (turn.text !== undefined) scripted = textTurn(turn.text, options);
  else scripted = { events: [] };
  if (turn.fail !== undefined) scripted = failingTurn(userError(world, turn.fail), turn.text === undefined && turn.toolUses === undefined && turn.events === undefined ? [] : scripted.events);
  return {
    ...scripted,
    ...(turn.stateWrites === undefined ? {} : { stateWrites: turn.stateWrites }),
    ...(turn.stateDeletes === undefined ? {} : { stateDeletes: turn.stateDeletes }),
    onCall: () => {
      if (turn.cancel === true) world.agent?.cancel();
      if (turn.startAnotherRun === true) {
        world.pending.push(
          (world.agent as Agent).invoke('another').then(
            () => world.observations.push('second run: none'),
            (error: unknown) => world.observations.push(`second run: ${MiddlewareError.isInstance(error) ? error.code : String(error)}`),
          ),
        );
      }
    },
  };
}

function buildTool(world: World, spec: AgentCaseTool): ScriptedTool {
  let call = 0;
  return new ScriptedTool({
    name: spec.name,
    respond: (input, context) => {
      world.toolCalls.push({ name: spec.name, input });
      if (spec.cancelAgent === true) world.agent?.cancel();
      if (spec.observeSignal === true) world.observations.push(`tool ${spec.name} signal aborted=${context.signal.aborted}`);
      if (spec.interrupt !== undefined) return context.interrupt({ name: spec.interrupt.name, reason: spec.interrupt.reason }).response;
      const outcomes = spec.outcomes ?? [{ value: 'ok' }];
      const outcome = outcomes[Math.min(++call, outcomes.length) - 1] as { value: unknown } | { error: string };
      if ('error' in outcome) throw userError(world, outcome.error);
      return outcome.value;
    },
  });
}

const stages = { agentStream: AgentStreamStage, invokeModel: InvokeModelStage, executeTool: ExecuteToolStage } as const;

/** Registers one vocabulary handler. The stage/phase pairs each "do" supports are listed in case-schema.ts. */
function register(world: World, registry: MiddlewareRegistry, spec: AgentCaseHandler): void {
  const stage = stages[spec.stage];
  const unsupported = (): never => {
    throw new Error(`Case handler "${spec.do}" is not defined for ${spec.stage}.${spec.phase}.`);
  };
  const key = `${spec.stage}.${spec.phase}.${spec.do}`;
  switch (key) {
    case 'invokeModel.input.appendSystemText':
      registry.add(InvokeModelStage.Input, (context) => ({ ...context, systemPrompt: [...context.systemPrompt, { text: spec.text ?? '' }] }));
      return;
    case 'invokeModel.input.replaceSystemPrompt':
      registry.add(InvokeModelStage.Input, (context) => ({ ...context, systemPrompt: spec.value as unknown as SystemContentBlock[] }));
      return;
    case 'invokeModel.input.observeFrozen':
      registry.add(InvokeModelStage.Input, (context) => {
        const first = context.messages[0];
        world.observations.push(
          `frozen context=${Object.isFrozen(context)} messages=${Object.isFrozen(context.messages)} firstMessage=${first === undefined ? 'none' : Object.isFrozen(first)} invocationState=${Object.isFrozen(context.invocationState)} sharesHistory=${context.messages === world.agent?.messages}`,
        );
        return context;
      });
      return;
    case 'invokeModel.wrap.pushMessage':
      registry.add(InvokeModelStage.Wrap, async function* pushMessage(context, next) {
        try {
          (context.messages as Message[]).push({ role: 'user', content: [{ type: 'text', text: spec.text ?? 'pushed' }] });
          world.observations.push('push succeeded');
        } catch (error) {
          world.observations.push(`push threw ${(error as Error).name}`);
        }
        yield* next();
      });
      return;
    case 'invokeModel.wrap.nextWithExtraMessage':
      registry.add(InvokeModelStage.Wrap, async function* nextWithExtraMessage(context, next) {
        const extra: Message = { role: 'user', content: [{ type: 'text', text: spec.text ?? '' }] };
        yield* next({ ...context, messages: produce(context.messages, (draft) => void draft.push(castDraft(extra))) });
      });
      return;
    case 'invokeModel.wrap.setModelState':
      registry.add(InvokeModelStage.Wrap, async function* setModelState(_context, next) {
        const agent = world.agent as Agent;
        if (spec.when !== 'after') agent.modelState = spec.value as Record<string, unknown>;
        yield* next();
        if (spec.when === 'after') agent.modelState = spec.value as Record<string, unknown>;
      });
      return;
    case 'invokeModel.input.setModelState':
      registry.add(InvokeModelStage.Input, (context) => {
        (world.agent as Agent).modelState = spec.value as Record<string, unknown>;
        return context;
      });
      return;
    case 'invokeModel.wrap.respond':
      registry.add(InvokeModelStage.Wrap, async function* respond() {
        yield { type: 'modelResult', message: { role: 'assistant', content: [{ type: 'text', text: spec.text ?? '' }] }, stopReason: 'endTurn', usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } };
      });
      return;
    case 'invokeModel.wrap.retry':
      registry.add(InvokeModelStage.Wrap, async function* retry(_context, next) {
        for (let attempt = 1; ; attempt++) {
          try {
            yield* next();
            return;
          } catch (error) {
            if (attempt >= (spec.attempts ?? 2)) throw error;
            world.observations.push(`retry after: ${(error as Error).message}`);
          }
        }
      });
      return;
    case 'invokeModel.output.setStopReason':
      registry.add(InvokeModelStage.Output, (result) => result.replace({ ...result.value, stopReason: spec.value as StopReason }));
      return;
    case 'invokeModel.output.replaceText':
      registry.add(InvokeModelStage.Output, (result) =>
        result.update((draft) => {
          for (const block of draft.message.content) if (block.type === 'text') block.text = block.text.replace(new RegExp(spec.pattern ?? '', 'g'), spec.replacement ?? '');
        }),
      );
      return;
    case 'invokeModel.output.fail':
      registry.add(InvokeModelStage.Output, () => {
        throw userError(world, spec.message ?? 'output failed');
      });
      return;
    case 'executeTool.input.observe':
      registry.add(ExecuteToolStage.Input, (context) => {
        world.observations.push(`tool ${context.toolUse.name} known=${context.tool !== undefined} signal=${context.signal instanceof AbortSignal}`);
        return context;
      });
      return;
    case 'executeTool.wrap.block':
      registry.add(ExecuteToolStage.Wrap, async function* block(context, next) {
        if (context.toolUse.name !== spec.tool) return yield* next();
        yield { type: 'toolResult', toolResult: { type: 'toolResult', toolUseId: context.toolUse.toolUseId, status: 'error', content: [{ type: 'text', text: spec.text ?? 'blocked' }] } };
      });
      return;
    case 'executeTool.wrap.approval':
      registry.add(ExecuteToolStage.Wrap, async function* approval(context, next) {
        if (context.toolUse.name !== spec.tool) return yield* next();
        const presupplied = spec.presupplied === undefined ? undefined : context.invocationState[spec.presupplied];
        const { response } = context.interrupt({ name: spec.name ?? 'approve', reason: spec.reason, response: presupplied });
        world.observations.push(`approval ${context.toolUse.toolUseId} ${String(response)}`);
        if (response === 'yes') return yield* next();
        yield { type: 'toolResult', toolResult: { type: 'toolResult', toolUseId: context.toolUse.toolUseId, status: 'error', content: [{ type: 'text', text: 'denied' }] } };
      });
      return;
    case 'executeTool.output.observe':
      registry.add(ExecuteToolStage.Output, (result) => {
        const { toolResult, error } = result.value;
        world.observations.push(`result ${toolResult.toolUseId} ${toolResult.status} error=${error === undefined ? 'none' : (error as Error).message}`);
        return result;
      });
      return;
    case 'agentStream.wrap.observeFinally':
      registry.add(AgentStreamStage.Wrap, async function* observeFinally(_context, next) {
        try {
          yield* next();
        } finally {
          world.observations.push('agentStream finally');
        }
      });
      return;
    case 'agentStream.input.replaceInput':
      registry.add(AgentStreamStage.Input, (context) => ({ ...context, messages: spec.value as unknown as Message[] }));
      return;
    default:
      if (spec.do === 'countInvocationState' && spec.phase === 'input') {
        registry.add(stage.Input as typeof AgentStreamStage.Input, (context) => {
          context.invocationState.count = ((context.invocationState.count as number | undefined) ?? 0) + 1;
          return context;
        });
        return;
      }
      unsupported();
  }
}

async function runCase(testCase: AgentCase): Promise<void> {
  const world: World = { agent: undefined, observations: [], toolCalls: [], errors: new Map(), pending: [] };
  const registry = new MiddlewareRegistry();
  for (const handler of testCase.handlers ?? []) register(world, registry, handler);
  const model = new ScriptedModel(testCase.agent.model.map((turn) => buildTurn(world, turn)));
  const callerObjects: object[] = [];
  const systemPrompt = testCase.agent.systemPrompt === undefined ? undefined : structuredClone(testCase.agent.systemPrompt);
  const messages = structuredClone(testCase.agent.messages ?? []) as unknown as Message[];
  const modelState = structuredClone(testCase.agent.modelState ?? {});
  callerObjects.push(messages, modelState, ...messages);
  if (typeof systemPrompt === 'object') callerObjects.push(systemPrompt, ...systemPrompt);
  const agent = new Agent({
    model,
    registry,
    tools: (testCase.agent.tools ?? []).map((tool) => buildTool(world, tool)),
    messages,
    modelState,
    ...(systemPrompt === undefined ? {} : { systemPrompt: systemPrompt as SystemContentBlock[] | string }),
  });
  world.agent = agent;

  for (const [index, run] of testCase.runs.entries()) {
    const invocationState = structuredClone(run.invocationState ?? {});
    const input = run.input === undefined ? undefined : structuredClone(run.input);
    if (typeof input === 'object') callerObjects.push(input, ...(input as object[]));
    const options = { invocationState, ...(run.signal === 'aborted' ? { signal: AbortSignal.abort('aborted before start') } : {}) };
    const events: AgentEvent[] = [];
    let failure: unknown;
    let failed = false;
    try {
      const stream = run.resume !== undefined ? agent.stream(undefined, { ...options, interruptResponses: run.resume }) : agent.stream(input as string | Message[] | undefined, options);
      for await (const event of stream) events.push(event);
    } catch (error) {
      failed = true;
      failure = error;
    }
    const expected = run.expect ?? {};
    const label = `run ${index + 1}`;
    if (expected.error !== undefined) {
      expect(failed, `${label} rejects`).toEqual(true);
      if (expected.error.code !== undefined) expect((failure as MiddlewareError).code, label).toEqual(expected.error.code);
      if (expected.error.message !== undefined) expect(failure, label).toBe(world.errors.get(expected.error.message));
      continue;
    }
    if (failed) throw failure;
    const result = events.at(-1);
    expect(result?.type, label).toEqual('agentResult');
    if (result?.type !== 'agentResult') continue;
    if (expected.stopReason !== undefined) expect(result.stopReason, label).toEqual(expected.stopReason);
    if (expected.interrupts !== undefined) expect(result.interrupts, label).toEqual(expected.interrupts);
    if (expected.usage !== undefined) expect(result.usage, label).toEqual(expected.usage);
    if (expected.eventTypes !== undefined) expect(events.map((event) => event.type), label).toEqual(expected.eventTypes);
    if (expected.invocationState !== undefined) expect(invocationState, label).toEqual(expected.invocationState);
  }
  await Promise.all(world.pending);

  const expected = testCase.expect ?? {};
  if (expected.history !== undefined) expect(agent.messages, 'history').toEqual(expected.history);
  if (expected.modelState !== undefined) expect(agent.modelState, 'model state').toEqual(expected.modelState);
  if (expected.toolCalls !== undefined) expect(world.toolCalls, 'tool calls').toEqual(expected.toolCalls);
  if (expected.observations !== undefined) expect(world.observations, 'observations').toEqual(expected.observations);
  if (expected.pendingInterrupts !== undefined) expect(agent.pendingInterrupts.map((interrupt) => interrupt.id), 'pending interrupts').toEqual(expected.pendingInterrupts);
  if (expected.callerObjectsUnfrozen === true) expect(callerObjects.map((object) => Object.isFrozen(object)), 'caller objects frozen').toEqual(callerObjects.map(() => false));
  if (expected.modelCalls !== undefined) {
    expect(model.calls.length, 'model calls').toEqual(expected.modelCalls.length);
    expected.modelCalls.forEach((call, index) => {
      const actual = model.calls[index];
      const view: Record<string, unknown> = {};
      if (call.systemPrompt !== undefined) view.systemPrompt = actual?.request.systemPrompt;
      if (call.systemBlocks !== undefined) view.systemBlocks = actual?.request.systemBlocks;
      if (call.messageCount !== undefined) view.messageCount = actual?.request.messages.length;
      if (call.lastMessage !== undefined) view.lastMessage = actual?.request.messages.at(-1);
      if (call.state !== undefined) view.state = actual?.state;
      expect(view, `model call ${index + 1}`).toEqual(call);
    });
  }
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

describe('spec section 5', () => {
  it('has at least one agent case for every rule MW-100 to MW-119 it defines', () => {
    const spec = readFileSync(join(casesDirectory, '..', 'SPEC.md'), 'utf8');
    const defined = [...spec.matchAll(/^### (MW-1[01]\d) /gm)].map((match) => match[1] as string);
    const covered = new Set(files.flatMap((file) => (JSON.parse(readFileSync(join(casesDirectory, file), 'utf8')) as { rules: string[] }).rules));
    expect(defined.length).toBeGreaterThan(0);
    expect(defined.filter((rule) => !covered.has(rule))).toEqual([]);
  });
});
