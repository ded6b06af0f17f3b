/**
 * The doubles and handlers of an agent conformance case: scripted model turns,
 * scripted tools and the vocabulary handlers, all recording into one world.
 */
import { castDraft, produce } from 'immer';
import { MiddlewareError, MiddlewareRegistry, type SystemContentBlock } from '../../src/index';
import {
  Agent,
  AgentStreamStage,
  CompressContextStage,
  ExecuteToolStage,
  InvokeModelStage,
  TurnStage,
  type Message,
  type Model,
  type ModelStreamEvent,
  type StopReason,
  type Tool,
  type Usage,
} from '../../src/agent/index';
import { failingTurn, ScriptedModel, ScriptedTool, type ScriptedTurn, textTurn, toolUseTurn } from '../../src/testing/index';
import type { AgentCaseHandler, AgentCaseTool, AgentCaseTurn } from './case-schema';
import { registerLoopHandler } from './case-loop-handlers';
import { registerMiddlewareHandler } from './case-middleware';
import { hedging, retrying } from './fixtures';

/** Everything a case's doubles and handlers record. */
export interface World {
  /** The agent under test, once built (handlers that cancel it need it). */
  agent: Agent | undefined;
  /** What the handlers, tools and model turns noted, in order. */
  readonly observations: string[];
  /** Every tool call, in order. */
  readonly toolCalls: { name: string; input: unknown }[];
  /** The user errors the case throws, by message. */
  readonly errors: Map<string, Error>;
  /** Work a handler started and the case awaits before its final checks. */
  readonly pending: Promise<unknown>[];
  /** Aborts the signal of the running run, when the run has one that is abortable. */
  abortRun: (() => void) | undefined;
  /** The scripted models of the sub-agents, by name. */
  readonly childModels: Map<string, ScriptedModel>;
}

/** Runs `cancelLater` once the run waits on the call: a macrotask later, after every pending promise job. */
function later(world: World, how: 'agent' | 'signal'): void {
  setTimeout(() => {
    if (how === 'agent') world.agent?.cancel();
    else world.abortRun?.();
  }, 0);
}

/** A user error the case names by its message, kept so the test can check it arrives unchanged. */
export function userError(world: World, message: string): Error {
  const error = new Error(message);
  world.errors.set(message, error);
  return error;
}

/** The scripted model turn a case turn describes. */
export function buildTurn(world: World, turn: AgentCaseTurn): ScriptedTurn {
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
      if (turn.cancelLater !== undefined) later(world, turn.cancelLater);
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

/**
 * The model of a case: a scripted model playing the turns that stream, and
 * around it the turns whose stream hangs or whose stream() returns a wrong value.
 */
export function buildModel(world: World, turns: readonly AgentCaseTurn[]): { model: Model; scripted: ScriptedModel } {
  const scripted = new ScriptedModel(turns.filter((turn) => turn.streamReturns === undefined).map((turn) => buildTurn(world, turn)));
  let call = 0;
  const model: Model = {
    stream(request, options) {
      const turn = turns[call++];
      if (turn?.streamReturns === 'promise') return Promise.resolve(scripted.stream(request, options)) as unknown as AsyncIterable<ModelStreamEvent>;
      if (turn?.streamReturns === 'null') return null as unknown as AsyncIterable<ModelStreamEvent>;
      const events = scripted.stream(request, options);
      return turn?.hang === true ? hangAfter(events) : events;
    },
  };
  return { model, scripted };
}

/** The events, then a wait that never ends and ignores every signal. */
async function* hangAfter(events: AsyncIterable<ModelStreamEvent>): AsyncGenerator<ModelStreamEvent, void, undefined> {
  yield* events;
  await new Promise(() => undefined);
}

/** An array nested `depth` levels deep. */
function nested(depth: number): unknown[] {
  let value: unknown[] = [];
  for (let level = 1; level < depth; level++) value = [value];
  return value;
}

/** The values JSON cannot carry that `{ returns }` names. */
function notJson(kind: string): unknown {
  switch (kind) {
    case 'cycle': {
      const value: Record<string, unknown> = { a: 1 };
      value.self = value;
      return value;
    }
    case 'bigint':
      return { n: 1n };
    case 'symbol':
      return Symbol('s');
    case 'function':
      return function answer() {
        return 1;
      };
    case 'throwingGetter':
      return Object.defineProperty({ ok: 1 }, 'broken', {
        enumerable: true,
        get() {
          throw new Error('no access');
        },
      });
    case 'throwingToJSON':
      return {
        list: [
          {
            toJSON() {
              throw new Error('bad toJSON');
            },
          },
        ],
      };
    default:
      return nested(1001);
  }
}

/** The values no plain Error that `{ throws }` names. */
function oddThrown(kind: string): unknown {
  switch (kind) {
    case 'nullPrototype':
      return Object.create(null) as unknown;
    case 'messageGetterThrows':
      return Object.defineProperty(new Error('hidden'), 'message', {
        get() {
          throw new Error('no message');
        },
      });
    case 'string':
      return 'boom';
    case 'number':
      return 42;
    default:
      return undefined;
  }
}

/** The scripted tool a case tool describes; its calls are recorded in the world. */
export function buildTool(world: World, spec: AgentCaseTool): Tool {
  if (spec.external === true) return { spec: { name: spec.name, description: `External tool ${spec.name}.`, inputSchema: { type: 'object' } } };
  let call = 0;
  return new ScriptedTool({
    name: spec.name,
    respond: (input, context) => {
      world.toolCalls.push({ name: spec.name, input });
      if (spec.cancelAgent === true) world.agent?.cancel();
      if (spec.cancelLater !== undefined) later(world, spec.cancelLater);
      if (spec.observeSignal === true) world.observations.push(`tool ${spec.name} signal aborted=${context.signal.aborted}`);
      if (spec.hang === true) return new Promise(() => undefined);
      if (spec.interrupt !== undefined) return context.interrupt({ name: spec.interrupt.name, reason: spec.interrupt.reason }).response;
      if (spec.interruptMany !== undefined) return context.interrupt(spec.interruptMany).map((answer) => answer.response);
      const outcomes = spec.outcomes ?? [{ value: 'ok' }];
      const outcome = outcomes[Math.min(++call, outcomes.length) - 1] as NonNullable<AgentCaseTool['outcomes']>[number];
      if ('error' in outcome) throw userError(world, outcome.error);
      if ('returns' in outcome) return notJson(outcome.returns);
      if ('throws' in outcome) throw oddThrown(outcome.throws);
      return outcome.value;
    },
  });
}

/** How an observation shows a tool result's error: none, its message, or its type when it has no readable message. */
function errorText(event: { readonly error?: unknown }): string {
  if (!('error' in event)) return 'none';
  try {
    const message = (event.error as { message?: unknown } | null | undefined)?.message;
    if (typeof message === 'string') return message;
  } catch {
    // Falls through to the type.
  }
  return `(${typeof event.error})`;
}

const stages = { agentStream: AgentStreamStage, invokeModel: InvokeModelStage, executeTool: ExecuteToolStage, turn: TurnStage, compressContext: CompressContextStage } as const;

/** Registers one vocabulary handler. The stage/phase pairs each "do" supports are listed in case-schema.ts. */
export function register(world: World, registry: MiddlewareRegistry, spec: AgentCaseHandler): void {
  const stage = stages[spec.stage];
  const unsupported = (): never => {
    throw new Error(`Case handler "${spec.do}" is not defined for ${spec.stage}.${spec.phase}.`);
  };
  if (registerLoopHandler(world, registry, spec)) return;
  if (registerMiddlewareHandler(world, registry, spec)) return;
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
          `frozen context=${Object.isFrozen(context)} messages=${Object.isFrozen(context.messages)} firstMessage=${first === undefined ? 'none' : Object.isFrozen(first)} invocationState=${Object.isFrozen(context.invocationState)} sharesHistory=${first === undefined ? 'none' : first === world.agent?.messages[0]}`,
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
      registry.add(InvokeModelStage.Wrap, retrying(spec.attempts ?? 2, (error) => world.observations.push(`retry after: ${error.message}`)));
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
        const { toolResult } = result.value;
        world.observations.push(`result ${toolResult.toolUseId} ${toolResult.status} error=${errorText(result.value)}`);
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
    case 'agentStream.wrap.retry':
      registry.add(AgentStreamStage.Wrap, retrying(spec.attempts ?? 2, (error) => world.observations.push(`run retry after: ${error.message}`)));
      return;
    case 'agentStream.wrap.hedge':
      registry.add(AgentStreamStage.Wrap, hedging((index) => world.observations.push(`hedge kept ${index + 1}`)));
      return;
    case 'agentStream.input.replaceInput':
      registry.add(AgentStreamStage.Input, (context) => ({ ...context, messages: spec.value as unknown as Message[] }));
      return;
    default:
      if (spec.do === 'passThrough' && spec.phase === 'wrap') {
        registry.add(stage.Wrap as typeof AgentStreamStage.Wrap, async function* passThrough(_context, next) {
          yield* next();
        });
        return;
      }
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
