/**
 * `modelCallLimit()` and `toolCallLimit()`: caps on the agent's model calls
 * and on tool calls, per run and per session (MW-270 – MW-273). A limit
 * reached ends the run with `stopReason: 'stopped'` and a `stoppedBy` that
 * says which limit, or (tool calls) answers the model with an error result
 * it reads and goes on.
 */
import type { Middleware, Next } from '../../core/index';
import { invalidOption } from '../../middleware/errors';
import { checkOptionsObject, positiveInteger } from '../../middleware/options';
import { named } from '../../middleware/named';
import { turnAction, type TurnDecider } from '../loop/turn-action';
import { errorResult } from '../tools/tool-terminal';
import type { Message } from '../types/message';
import type {
  ExecuteToolContext,
  ExecuteToolEvent,
  InvokeModelContext,
  InvokeModelEvent,
  ModelResultEvent,
  TurnAction,
  TurnContext,
} from '../types/stages';
import { ExecuteToolStage, InvokeModelStage, TurnStage } from '../stages';
import { refuseUnknownOptions } from './known-options';
import {
  countOf,
  countToolCall,
  modelCountingToolUses,
  modelWritingState,
  runCounts,
  sessionToolCounts,
  setOwn,
  SESSION_MODEL_CALLS_KEY,
  SESSION_TOOL_CALLS_KEY,
  type CallPosition,
} from './call-counts';

/** Options of {@link modelCallLimit}; at least one limit. */
export interface ModelCallLimitOptions {
  /** The most model calls of the agent's own in one run (a resume of a halted run goes on counting). */
  readonly runLimit?: number;
  /** The most model calls of the agent's own in its session: every run the conversation kept, across snapshots. */
  readonly sessionLimit?: number;
}

/** What a tool call past a limit gets. */
export type ToolCallLimitAction = 'answer' | 'end';

/** Options of {@link toolCallLimit}; at least one limit. */
export interface ToolCallLimitOptions {
  /** The tool whose calls count; every tool's, together, when absent. */
  readonly tool?: string;
  /** The most calls in one run. */
  readonly runLimit?: number;
  /** The most calls in the session. */
  readonly sessionLimit?: number;
  /**
   * A call past a limit is answered with an error result the model reads;
   * `'answer'` (default) goes on, `'end'` also ends the run after the turn.
   */
  readonly onLimit?: ToolCallLimitAction;
}

const MODEL_OPTIONS = ['runLimit', 'sessionLimit'] as const;
const TOOL_OPTIONS = ['tool', 'runLimit', 'sessionLimit', 'onLimit'] as const;
const NO_USAGE = /*#__PURE__*/ Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/**
 * A bundle named `modelCallLimit`. Before each model call of the agent's own
 * (a context without `caller`), its InvokeModelStage Wrap handler compares
 * the run's and the session's counts with the limits; within them, it counts
 * the call and makes it; past one, it answers with an assistant message
 * saying so, without calling the model, and its TurnStage handler ends the
 * run after that turn with `stoppedBy: { handler: 'modelCallLimit', reason }`.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`handler: 'modelCallLimit'`) at once for bad or unknown options, or no limit.
 * @example
 * ```ts
 * registry.use(modelCallLimit({ runLimit: 10, sessionLimit: 50 }));
 * ```
 */
export function modelCallLimit(options: ModelCallLimitOptions): Middleware {
  const { runLimit, sessionLimit } = readLimits('modelCallLimit', options, MODEL_OPTIONS, '{ runLimit?, sessionLimit? }');
  const limitModelCalls = async function* (
    context: InvokeModelContext,
    next: Next<InvokeModelContext, InvokeModelEvent>,
  ): AsyncGenerator<InvokeModelEvent, void, undefined> {
    if (context.caller !== undefined) {
      yield* next();
      return;
    }
    const counts = runCounts(context.invocationState);
    const session = countOf(context.modelState?.[SESSION_MODEL_CALLS_KEY]);
    const reached =
      runLimit !== undefined && counts.modelCalls >= runLimit
        ? `reached the run limit of ${calls(runLimit, undefined, 'model')}`
        : sessionLimit !== undefined && session >= sessionLimit
          ? `reached the session limit of ${calls(sessionLimit, undefined, 'model')}`
          : undefined;
    if (reached !== undefined) {
      setOwn(counts.stops, 'modelCallLimit', reached);
      yield limitAnswer(`Model call limit: ${reached}.`);
      return;
    }
    counts.modelCalls += 1;
    yield* next({ ...context, model: modelWritingState(context.model, { [SESSION_MODEL_CALLS_KEY]: session + 1 }) });
  };
  return {
    name: 'modelCallLimit',
    setup(registrar) {
      registrar.add(InvokeModelStage.Wrap, named('modelCallLimit', limitModelCalls));
      registrar.add(TurnStage.Wrap, turnAction(stopWhenAsked('modelCallLimit')));
    },
  };
}

/**
 * A bundle named `toolCallLimit:<tool>` (`toolCallLimit` for every tool).
 * Its ExecuteToolStage Wrap handler counts each call of the tool once, in
 * the run and in the session, and when the calls before it already reach a
 * limit, answers with an error result naming the limit instead of running
 * it; with `onLimit: 'end'` its TurnStage handler then ends the run after
 * the turn with `stoppedBy: { handler: 'toolCallLimit', reason }`. Its
 * InvokeModelStage Input handler keeps the session's counts in the model
 * state with each model call of the agent's own.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`handler: 'toolCallLimit'`) at once for bad or unknown options, or no limit.
 * @example
 * ```ts
 * registry.use(toolCallLimit({ tool: 'search', runLimit: 3, onLimit: 'end' }));
 * ```
 */
export function toolCallLimit(options: ToolCallLimitOptions): Middleware {
  const { runLimit, sessionLimit } = readLimits('toolCallLimit', options, TOOL_OPTIONS, '{ tool?, runLimit?, sessionLimit?, onLimit? }');
  const { tool, onLimit = 'answer' } = options as { tool?: unknown; onLimit?: unknown };
  if (tool !== undefined && (typeof tool !== 'string' || tool.length === 0))
    throw invalidOption('toolCallLimit', 'options.tool must be a non-empty tool name, or absent for every tool', tool);
  if (onLimit !== 'answer' && onLimit !== 'end') throw invalidOption('toolCallLimit', "options.onLimit must be 'answer' or 'end'", onLimit);
  const limitToolCalls = async function* (
    context: ExecuteToolContext,
    next: Next<ExecuteToolContext, ExecuteToolEvent>,
  ): AsyncGenerator<ExecuteToolEvent, void, undefined> {
    const { toolUse } = context;
    if (tool !== undefined && toolUse.name !== tool) {
      yield* next();
      return;
    }
    const counts = runCounts(context.invocationState);
    const position: CallPosition = countToolCall(counts, toolUse.toolUseId, toolUse.name);
    const [inRun, inSession] = tool === undefined ? [position.runAll, position.sessionAll] : [position.run, position.session];
    const reached =
      runLimit !== undefined && inRun >= runLimit
        ? `reached the run limit of ${calls(runLimit, tool)}`
        : sessionLimit !== undefined && inSession >= sessionLimit
          ? `reached the session limit of ${calls(sessionLimit, tool)}`
          : undefined;
    if (reached === undefined) {
      yield* next();
      return;
    }
    if (onLimit === 'end') setOwn(counts.stops, 'toolCallLimit', reached);
    const advice = onLimit === 'end' ? 'The run ends after this turn.' : `Do not call ${toolUse.name} again; answer with what you have.`;
    yield errorResult(toolUse, `Tool call limit: ${reached}. ${advice}`);
  };
  const keepSessionCounts = (context: InvokeModelContext): InvokeModelContext => {
    if (context.caller !== undefined) return context;
    const counts = runCounts(context.invocationState);
    const session = sessionToolCounts(context.modelState?.[SESSION_TOOL_CALLS_KEY]);
    counts.sessionToolCalls = session;
    counts.batch = {};
    counts.positions = {};
    return { ...context, model: modelCountingToolUses(context.model, session) };
  };
  return {
    name: tool === undefined ? 'toolCallLimit' : `toolCallLimit:${tool}`,
    setup(registrar) {
      registrar.add(InvokeModelStage.Input, named('toolCallLimit', keepSessionCounts));
      registrar.add(ExecuteToolStage.Wrap, named('toolCallLimit', limitToolCalls));
      registrar.add(TurnStage.Wrap, turnAction(stopWhenAsked('toolCallLimit')));
    },
  };
}

/**
 * The TurnStage decider named `handler`: ends the run after a turn in which
 * that limit asked to, with its reason, once.
 */
function stopWhenAsked(handler: string): TurnDecider {
  return named(handler, (context: TurnContext): TurnAction | undefined => {
    const counts = runCounts(context.invocationState);
    const reason = Object.prototype.hasOwnProperty.call(counts.stops, handler) ? counts.stops[handler] : undefined;
    if (reason === undefined) return undefined;
    delete counts.stops[handler];
    return { decision: 'stop', reason };
  });
}

/** The model result that stands for a call past the limit: an assistant message saying so. */
function limitAnswer(text: string): ModelResultEvent {
  const message: Message = Object.freeze({ role: 'assistant', content: Object.freeze([Object.freeze({ type: 'text', text })]) });
  return Object.freeze({ type: 'modelResult', message, stopReason: 'endTurn', usage: NO_USAGE });
}

/** `1 tool call`, `2 tool calls`, `2 calls of search`. */
function calls(count: number, tool: string | undefined, kind = 'tool'): string {
  const noun = count === 1 ? 'call' : 'calls';
  return tool === undefined ? `${count} ${kind} ${noun}` : `${count} ${noun} of ${tool}`;
}

/** Checks the options object, refusing keys it does not know, and its limits. */
function readLimits(
  factory: string,
  options: unknown,
  known: readonly string[],
  shape: string,
): { runLimit: number | undefined; sessionLimit: number | undefined } {
  checkOptionsObject(factory, options, shape);
  refuseUnknownOptions(factory, options as object, known, shape);
  const { runLimit, sessionLimit } = options as { runLimit?: unknown; sessionLimit?: unknown };
  if (runLimit === undefined && sessionLimit === undefined) throw invalidOption(factory, 'give runLimit, sessionLimit or both', options);
  return {
    runLimit: runLimit === undefined ? undefined : positiveInteger(factory, 'options.runLimit', runLimit),
    sessionLimit: sessionLimit === undefined ? undefined : positiveInteger(factory, 'options.sessionLimit', sessionLimit),
  };
}
