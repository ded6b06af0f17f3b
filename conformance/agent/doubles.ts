/**
 * The doubles of an agent conformance case: scripted model turns and
 * scripted tools (MW-118), recording into one world.
 */
import { MiddlewareError } from '../../src/core/index';
import { defineTool, type ContentBlock, type Model, type ModelStreamEvent, type Tool, type Usage } from '../../src/agent/index';
import { z } from 'zod';
import { failingTurn, ScriptedModel, ScriptedTool, textTurn, toolUseTurn, type ScriptedTurn } from '../../src/testing/index';
import type { AgentCaseTool, AgentCaseTurn } from '../cases/agent-doubles';
import type { AgentLoopSession } from './adapter';

/** Everything a case's doubles and handlers record. */
export interface World {
  /** The conversation under test, once started (handlers that cancel it or set its model state need it). */
  session: AgentLoopSession | undefined;
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
  /** The process the current durable run runs in (0 before any durable run). */
  process: number;
}

/** Runs `cancelLater` once the run waits on the call: a macrotask later, after every pending promise job. */
export function later(world: World, how: 'agent' | 'signal'): void {
  setTimeout(() => {
    if (how === 'agent') world.session?.cancel?.();
    else world.abortRun?.();
  }, 0);
}

/** A user error the case names by its message, kept so that its arrival can be recognised as the very object. */
export function userError(world: World, message: string): Error {
  const error = new Error(message);
  world.errors.set(message, error);
  return error;
}

/** The text blocks of a message's content, joined: what a case's patterns and observations read. */
export function textOf(content: readonly ContentBlock[]): string {
  return content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** The scripted model turn a case turn describes. */
export function buildTurn(world: World, turn: AgentCaseTurn): ScriptedTurn {
  let scripted: ScriptedTurn;
  const options = {
    ...(turn.usage === undefined ? {} : { usage: turn.usage as Usage }),
    ...(turn.stopReason === undefined ? {} : { stopReason: turn.stopReason }),
  };
  if (turn.events !== undefined) scripted = { events: turn.events as unknown as ModelStreamEvent[] };
  else if (turn.toolUses !== undefined) {
    scripted = toolUseTurn(
      turn.toolUses.map((toolUse) => ({
        name: toolUse.name,
        input: toolUse.input,
        ...(toolUse.id === undefined ? {} : { toolUseId: toolUse.id }),
      })),
      { ...options, ...(turn.text === undefined ? {} : { text: turn.text }) },
    );
  } else if (turn.text !== undefined) scripted = textTurn(turn.text, options);
  else scripted = { events: [] };
  if (turn.fail !== undefined)
    scripted = failingTurn(
      userError(world, turn.fail),
      turn.text === undefined && turn.toolUses === undefined && turn.events === undefined ? [] : scripted.events,
    );
  return {
    ...scripted,
    ...(turn.stateWrites === undefined ? {} : { stateWrites: turn.stateWrites }),
    ...(turn.stateDeletes === undefined ? {} : { stateDeletes: turn.stateDeletes }),
    onCall: () => {
      if (turn.cancel === true) world.session?.cancel?.();
      if (turn.cancelLater !== undefined) later(world, turn.cancelLater);
      if (turn.startAnotherRun === true) {
        world.pending.push(
          drain((world.session as AgentLoopSession).run({ input: 'another' })).then(
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
export function buildModel(world: World, written: readonly AgentCaseTurn[], modelId?: string): { model: Model; scripted: ScriptedModel } {
  const turns = written.flatMap((turn) => Array.from({ length: turn.repeat ?? 1 }, () => turn));
  const scripted = new ScriptedModel(turns.filter((turn) => turn.streamReturns === undefined).map((turn) => buildTurn(world, turn)));
  let call = 0;
  const model: Model = {
    ...(modelId === undefined ? {} : { modelId }),
    stream(request, options) {
      const turn = turns[call++];
      if (turn?.streamReturns === 'promise')
        return Promise.resolve(scripted.stream(request, options)) as unknown as AsyncIterable<ModelStreamEvent>;
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
    case 'bigint':
      return 1n;
    default:
      return undefined;
  }
}

/**
 * The scripted tool a case tool describes, or an external one (no `run`); its calls are recorded in the world.
 * With `inputSchema`, the tool is made by `defineTool` (MW-185) with a zod schema built from that JSON Schema,
 * so the scripted tool sees only validated input.
 */
export function buildTool(world: World, spec: AgentCaseTool): Tool {
  const approval = spec.needsApproval === undefined ? {} : { needsApproval: spec.needsApproval };
  if (spec.external === true)
    return { spec: { name: spec.name, description: `External tool ${spec.name}.`, inputSchema: { type: 'object' } }, ...approval };
  const scripted = scriptedTool(world, spec);
  if (spec.needsApproval !== undefined && spec.inputSchema === undefined)
    return { spec: scripted.spec, run: (input, context) => scripted.run(input, context), ...approval };
  if (spec.inputSchema === undefined) return scripted;
  return defineTool({
    name: spec.name,
    description: scripted.spec.description,
    input: z.fromJSONSchema(spec.inputSchema as never),
    run: (input, context) => scripted.run(input, context),
    ...approval,
  });
}

/** The scripted tool answering a case tool's calls. */
function scriptedTool(world: World, spec: AgentCaseTool): ScriptedTool {
  let call = 0;
  return new ScriptedTool({
    name: spec.name,
    respond: (input, context) => {
      world.toolCalls.push({ name: spec.name, input });
      if (spec.cancelAgent === true) world.session?.cancel?.();
      if (spec.cancelLater !== undefined) later(world, spec.cancelLater);
      if (spec.observeSignal === true) world.observations.push(`tool ${spec.name} signal aborted=${context.signal.aborted}`);
      if (spec.observeKey === true) world.observations.push(`tool ${spec.name} key ${context.idempotencyKey ?? 'none'}`);
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

/** Pulls a run to its end. */
async function drain(events: AsyncIterable<unknown>): Promise<void> {
  for await (const _event of events);
}
