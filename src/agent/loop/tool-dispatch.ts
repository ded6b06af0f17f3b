/**
 * The tool calls of one turn of a loop (MW-326): an ExecuteToolStage invoke
 * per tool use, one after another, in message order. An interrupt does not
 * stop the others: it is yielded at once and the turn halts when every call
 * has run (MW-113, MW-132). The reference agent's turn loop runs
 * {@link dispatchTools}; {@link callTools} runs the same for a framework's
 * own loop.
 */

import type { MiddlewareRegistry } from '../../core/index';
import { isObject } from '../../util/is-object';
import type { PendingTurn } from '../session/suspended-run';
import { interruptFor, InterruptSignal, type ResponseStore } from '../session/interrupts';
import { freezeResultEvent, frozenCopy } from '../values/freeze';
import type { ToolResultBlock, ToolUseBlock } from '../types/message';
import type { Usage } from '../types/model';
import type { AgentEvent, ExecuteToolContext, InterruptEvent, MiddlewareModelCaller, ToolResultEvent } from '../types/stages';
import { ExecuteToolStage } from '../stages';
import type { Interrupt, Tool } from '../types/tool';
import type { AgentView } from '../types/view';
import { toolTerminal } from '../tools/tool-terminal';
import { invalidToolCalls, invalidToolUsage } from '../tools/call-errors';
import { namedToolResult } from '../tools/named-tool-result';
import { isUsage } from '../setup/usage';

/** A turn being worked on: its pending part, with the results this terminal call found so far. */
export interface WorkingTurn extends PendingTurn {
  /** The results known, by tool-use id. */
  readonly results: Map<string, ToolResultBlock>;
  /** The tool uses whose result asked to end the run. */
  readonly terminating: Set<string>;
}

/** What the tool calls of a turn run with. */
interface ToolDispatch {
  /** The registry the invokes run on. */
  readonly registry: MiddlewareRegistry;
  /** The tools, by name. */
  readonly tools: ReadonlyMap<string, Tool>;
  /** Where the calls' interrupts find their responses. */
  readonly store: ResponseStore;
  /** The run's invocation state, shared by reference. */
  readonly invocationState: Record<string, unknown>;
  /** The run's signal. */
  readonly signal: AbortSignal;
  /** The agent view handlers may read, if any. */
  readonly agent?: AgentView | undefined;
  /** Learns of the usage a tool result reports (a sub-agent's), if anyone does. */
  readonly report?: ((who: string, usage: Usage) => void) | undefined;
  /** Learns of every interrupt raised, if anyone does. */
  readonly shown?: Interrupt[] | undefined;
  /** The model calls a tool call's handlers make, counted under their caller (MW-342), if the run offers them. */
  readonly invokeModel?: MiddlewareModelCaller | undefined;
}

/**
 * ExecuteToolStage for each tool use of the turn that has no result yet,
 * yielding an interrupt event for each interrupt as it is raised; returns the interrupts raised.
 */
export async function* dispatchTools(
  dispatch: ToolDispatch,
  turn: WorkingTurn,
): AsyncGenerator<AgentEvent, readonly Interrupt[], undefined> {
  const { registry, tools, store, invocationState, signal, agent, report, shown, invokeModel } = dispatch;
  const interrupts: Interrupt[] = [];
  const childRegistry = () => registry.child();
  for (const toolUse of turn.toolUses) {
    if (turn.results.has(toolUse.toolUseId)) continue;
    const context: { -readonly [K in keyof ExecuteToolContext]: ExecuteToolContext[K] } = {
      tool: tools.get(toolUse.name),
      toolUse: Object.freeze({ name: toolUse.name, toolUseId: toolUse.toolUseId, input: toolUse.input }),
      invocationState,
      signal,
      interrupt: interruptFor(ExecuteToolStage.name, toolUse.toolUseId, store),
      childRegistry,
    };
    if (agent !== undefined) context.agent = agent;
    if (invokeModel !== undefined) context.invokeModel = invokeModel;
    let raised: readonly Interrupt[];
    try {
      let last: AgentEvent | undefined;
      for await (const event of registry.invoke(ExecuteToolStage, Object.freeze(context), toolTerminal, { signal })) {
        last = freezeResultEvent(event);
        yield event;
      }
      const result = last as ToolResultEvent;
      turn.results.set(toolUse.toolUseId, namedToolResult(result.toolResult, toolUse));
      if (result.usage !== undefined) {
        // Checked whether or not anyone counts it: a result reporting malformed usage fails every loop alike.
        const usage = readUsage(result.usage, toolUse.name);
        report?.(toolUse.name, usage);
      }
      if (result.terminate === true) turn.terminating.add(toolUse.toolUseId);
      continue;
    } catch (error) {
      if (!InterruptSignal.isInstance(error)) throw error;
      // A signal of an older copy of the package carries one interrupt only.
      const interrupts: readonly Interrupt[] | undefined = error.interrupts;
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal of an older copy has no interrupts
      raised = interrupts ?? [error.interrupt];
    }
    for (const interrupt of raised) {
      interrupts.push(interrupt);
      shown?.push(interrupt);
      yield interruptEvent(interrupt);
    }
  }
  return Object.freeze(interrupts);
}

/**
 * The `usage` a tool result reports, checked.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `executeTool`) unless it is three finite numbers.
 */
function readUsage(usage: unknown, tool: string): Usage {
  if (isUsage(usage)) return usage;
  throw invalidToolUsage(tool, usage);
}

/** The event that announces an interrupt (frozen; the interrupt is the one the agent result lists). */
export function interruptEvent(interrupt: Interrupt): InterruptEvent {
  return Object.freeze({ type: 'interrupt', interrupt });
}

/** What {@link callTools} runs: one turn's tool uses, with the tools and the answers known. */
export interface ToolCallParts {
  /** The tool uses to run, in the order they run (a model call's `toolUses`). */
  readonly toolUses: readonly ToolUseBlock[];
  /** The tools, looked up by `spec.name` (the first of a name wins); a tool use naming none gets the terminal's error result. */
  readonly tools: readonly Tool[];
  /** The run's invocation state, shared by reference with every call. */
  readonly invocationState: Record<string, unknown>;
  /** Results found before (a halted turn's, from `restoreLoop`): their tool uses do not run again. */
  readonly results?: readonly ToolResultBlock[] | undefined;
  /** Answers to the calls' questions, by interrupt id (`executeTool:<tool-use id>:<name>`). */
  readonly responses?: Readonly<Record<string, unknown>> | undefined;
  /** The agent view handlers may read, if any. */
  readonly agent?: AgentView | undefined;
}

/** What a turn's tool calls came to (frozen). */
export interface ToolCallsResult {
  /** The results of the tool uses that have one (given or found now), each named, in tool-use order. */
  readonly results: readonly ToolResultBlock[];
  /** The questions calls raised and nobody answered, in the order raised; the turn halted exactly when there are any. */
  readonly interrupts: readonly Interrupt[];
  /** The first tool use, in tool-use order, whose result of this call asked to end the run (`terminate: true`), if any. */
  readonly terminate?: { readonly tool: string; readonly toolUseId: string };
}

const NEVER_LATE = (): undefined => undefined;

/**
 * Runs a turn's tool uses through ExecuteToolStage, as the reference agent
 * runs its own: one after another, each with the `toolTerminal`, its
 * `interrupt()` reading `parts.responses`, its result named by
 * `namedToolResult`. A call that raises a question does not stop the others.
 * Yields every event of every invoke and an `interrupt` event for each
 * question as it is raised; returns the results, the questions and the
 * first call asking to end the run.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `executeTool`) at once when `parts` does not fit
 *   {@link ToolCallParts}, or a given result answers no tool use or one answered twice; what an invoke throws
 *   (other than a question), as thrown.
 * @example
 * ```ts
 * async function* tools(history: History, toolUses: readonly ToolUseBlock[]) {
 *   const calls = yield* callTools(registry, { toolUses, tools: [weather], invocationState: {} });
 *   if (calls.interrupts.length === 0 && calls.results.length > 0) history.append({ role: 'user', content: calls.results });
 *   return calls; // a halted turn: snapshotLoop({ ..., halted: { interrupts, message, results } })
 * }
 * ```
 */
export function callTools(
  registry: MiddlewareRegistry,
  parts: ToolCallParts,
  options: { readonly signal?: AbortSignal | undefined } = {},
): AsyncGenerator<AgentEvent, ToolCallsResult, undefined> {
  const turn = readToolCallParts(parts);
  const tools = new Map<string, Tool>();
  for (const tool of parts.tools) if (!tools.has(tool.spec.name)) tools.set(tool.spec.name, tool);
  const store = { responses: new Map(Object.entries(parts.responses ?? {})), late: NEVER_LATE };
  const signal = options.signal ?? new AbortController().signal;
  const dispatch: ToolDispatch = { registry, tools, store, invocationState: parts.invocationState, signal, agent: parts.agent };
  return callToolsOf(dispatch, turn);
}

/** The dispatch of the turn, then what it came to. */
async function* callToolsOf(dispatch: ToolDispatch, turn: WorkingTurn): AsyncGenerator<AgentEvent, ToolCallsResult, undefined> {
  const interrupts = yield* dispatchTools(dispatch, turn);
  const { toolUses, results, terminating } = turn;
  const ending = toolUses.find((toolUse) => terminating.has(toolUse.toolUseId));
  const outcome: { -readonly [K in keyof ToolCallsResult]: ToolCallsResult[K] } = {
    results: Object.freeze(toolUses.flatMap((toolUse) => results.get(toolUse.toolUseId) ?? [])),
    interrupts,
  };
  if (ending !== undefined) outcome.terminate = Object.freeze({ tool: ending.name, toolUseId: ending.toolUseId });
  return Object.freeze(outcome);
}

/**
 * The working turn of `parts`, checked: its tool uses and the results given, copied and frozen.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `executeTool`) naming the part that does not fit.
 */
function readToolCallParts(parts: ToolCallParts): WorkingTurn {
  if (!isObject(parts)) throw invalidToolCalls('parts must be { toolUses, tools, invocationState, results?, responses? }', parts);
  const { toolUses, tools, invocationState, results = [], responses } = parts;
  if (!Array.isArray(toolUses) || !toolUses.every(isToolUse))
    throw invalidToolCalls('parts.toolUses must be an array of tool uses { type: "toolUse", toolUseId, name, input }', toolUses);
  if (
    !Array.isArray(tools) ||
    !tools.every((tool: Partial<Tool> | null) => isObject(tool) && isObject(tool.spec) && typeof tool.spec.name === 'string')
  )
    throw invalidToolCalls('parts.tools must be an array of tools, each with a spec naming it', tools);
  if (!isObject(invocationState)) throw invalidToolCalls('parts.invocationState must be an object', invocationState);
  if (responses !== undefined && !isObject(responses))
    throw invalidToolCalls('parts.responses must be an object of answers by interrupt id, or left out', responses);
  if (!Array.isArray(results)) throw invalidToolCalls('parts.results must be an array of tool results, or left out', results);
  const frozenUses = frozenCopy(toolUses, 'parts.toolUses');
  const ids = new Set(frozenUses.map((toolUse) => toolUse.toolUseId));
  const known = new Map<string, ToolResultBlock>();
  for (const result of frozenCopy(results, 'parts.results') as readonly ToolResultBlock[]) {
    if (!isObject(result) || !ids.has(result.toolUseId) || known.has(result.toolUseId))
      throw invalidToolCalls('parts.results must answer tool uses of parts.toolUses, each at most once', result);
    known.set(result.toolUseId, result);
  }
  return { message: NO_MESSAGE, toolUses: frozenUses, results: known, terminating: new Set() };
}

/** Whether `value` is a tool use a call can be made of. */
function isToolUse(value: unknown): value is ToolUseBlock {
  const block = value as Partial<ToolUseBlock> | null;
  return isObject(block) && block.type === 'toolUse' && typeof block.toolUseId === 'string' && typeof block.name === 'string';
}

/** The message of a working turn whose message the dispatch never reads. */
const NO_MESSAGE = /*#__PURE__*/ Object.freeze({ role: 'assistant' as const, content: /*#__PURE__*/ Object.freeze([]) });
