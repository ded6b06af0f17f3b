import { createStage, isStage, MiddlewareError } from '../core/index';
import type { MiddlewareStage } from '../core/index';
import { describeValue } from '../util/describe-value';
import type {
  AgentEvent,
  AgentResultEvent,
  AgentStreamContext,
  ExecuteToolContext,
  ExecuteToolEvent,
  InvokeModelContext,
  InvokeModelEvent,
  ModelResultEvent,
  ToolResultEvent,
  CompressContextContext,
  ContextResultEvent,
  TurnContext,
  TurnEvent,
  TurnResultEvent,
} from './types/stages';

/** Marks an event object of the given kind; every guard below is built from it. */
function hasType(event: unknown, type: string): boolean {
  return typeof event === 'object' && event !== null && (event as { type?: unknown }).type === type;
}

/** Result guard of {@link InvokeModelStage}. */
export function isModelResult(event: unknown): event is ModelResultEvent {
  return hasType(event, 'modelResult');
}

/** Result guard of {@link ExecuteToolStage}. */
export function isToolResult(event: unknown): event is ToolResultEvent {
  return hasType(event, 'toolResult');
}

/** Result guard of {@link AgentStreamStage}. */
export function isAgentResult(event: unknown): event is AgentResultEvent {
  return hasType(event, 'agentResult');
}

/** Result guard of {@link TurnStage}. */
export function isTurnResult(event: unknown): event is TurnResultEvent {
  return hasType(event, 'turnResult');
}

/** Result guard of {@link CompressContextStage}. */
export function isContextResult(event: unknown): event is ContextResultEvent {
  return hasType(event, 'contextResult');
}

/** The three standard stages, as one copy of the package publishes them for the realm. */
interface StandardStages {
  /** {@link InvokeModelStage}. */
  readonly invokeModel: MiddlewareStage<InvokeModelContext, ModelResultEvent, InvokeModelEvent>;
  /** {@link ExecuteToolStage}. */
  readonly executeTool: MiddlewareStage<ExecuteToolContext, ToolResultEvent, ExecuteToolEvent>;
  /** {@link AgentStreamStage}. */
  readonly agentStream: MiddlewareStage<AgentStreamContext, AgentResultEvent, AgentEvent>;
}

/** The standard stages the loop controls added, published apart from the first three (MW-200). */
interface LoopStages {
  /** {@link TurnStage}. */
  readonly turn: MiddlewareStage<TurnContext, TurnResultEvent, TurnEvent>;
}

/** The standard stage of context compression, published apart from the others (MW-200). */
interface ContextStages {
  /** {@link CompressContextStage}. */
  readonly compressContext: MiddlewareStage<CompressContextContext, ContextResultEvent, ContextResultEvent>;
}

/**
 * Where the standard stages of a realm live (MW-200). Handlers are matched to
 * stages by identity, so stages created per copy would let a guard registered
 * through the ESM build (or one installed copy) be skipped by an agent of the
 * CommonJS build (or another copy). `v1` names the stages' contract: a copy
 * whose stage contexts, events or results differ publishes under another key.
 * TurnStage has a key of its own, so a copy from before it existed and a
 * later one still share the first three.
 */
const STANDARD_STAGES_KEY = 'staged-middleware.agent.standard-stages.v1';
const LOOP_STAGES_KEY = 'staged-middleware.agent.loop-stages.v1';
const CONTEXT_STAGES_KEY = 'staged-middleware.agent.context-stages.v1';

/**
 * The stages published under `key`: the ones a copy loaded earlier published,
 * else a stage per name of `isResultOf` (with that result check), published
 * for every copy loaded later.
 *
 * @throws MiddlewareError `ERR_INVALID_STAGE` when the key holds anything but genuine stages with the standard names.
 */
function realmStages<TStages extends object>(
  key: string,
  isResultOf: Readonly<Record<keyof TStages & string, (event: unknown) => boolean>>,
): TStages {
  const symbol = Symbol.for(key);
  const names = Object.keys(isResultOf) as (keyof TStages & string)[];
  const published = (globalThis as unknown as Record<symbol, unknown>)[symbol];
  if (published !== undefined) return checkPublished(published, key, names) as TStages;
  const stages: Record<string, MiddlewareStage<unknown, unknown, unknown>> = {};
  for (const name of names) stages[name] = createStage(name, { isResult: isResultOf[name] });
  // Not writable, not configurable: once published, no code can swap the
  // stages out from under handlers registered on them.
  Object.defineProperty(globalThis, symbol, { value: Object.freeze(stages), writable: false, enumerable: false, configurable: false });
  return stages as TStages;
}

/** The error of a realm whose standard-stage key `key` holds something other than the package's standard stages (MW-200). */
function foreignStandardStage(name: string, found: unknown, key: string): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_STAGE',
    stage: name,
    message: `staged-middleware/agent found ${describeValue(found)} as the "${name}" standard stage under globalThis[Symbol.for('${key}')], where every copy of the package keeps the realm's standard stages. Some other code wrote to that key; remove that code, since the agent cannot run handlers on stages it cannot trust.`,
  });
}

function checkPublished(published: unknown, key: string, names: readonly string[]): object {
  for (const name of names) {
    const stage = typeof published === 'object' && published !== null ? (published as Record<string, unknown>)[name] : undefined;
    if (!isStage(stage) || stage.name !== name) {
      throw foreignStandardStage(name, stage, key);
    }
  }
  return published as object;
}

const standardStages = realmStages<StandardStages>(STANDARD_STAGES_KEY, {
  invokeModel: isModelResult,
  executeTool: isToolResult,
  agentStream: isAgentResult,
});

const loopStages = realmStages<LoopStages>(LOOP_STAGES_KEY, { turn: isTurnResult });

const contextStages = realmStages<ContextStages>(CONTEXT_STAGES_KEY, { compressContext: isContextResult });

/**
 * One model call: the context is what the model will see, the events are the
 * model's stream, the result is the assembled message with its stop reason.
 *
 * @example
 * ```ts
 * registry.add(InvokeModelStage.Input, (context) => ({
 *   ...context,
 *   systemPrompt: [...context.systemPrompt, { text: 'Answer in French.' }],
 * }));
 * ```
 */
export const InvokeModelStage: MiddlewareStage<InvokeModelContext, ModelResultEvent, InvokeModelEvent> = standardStages.invokeModel;

/**
 * One tool call: the context names the tool (undefined for an unknown one)
 * and the call; the result is the tool result sent back to the model.
 *
 * @example
 * ```ts
 * registry.add(ExecuteToolStage.Wrap, async function* guard(context, next) {
 *   if (context.toolUse.name === 'deleteFiles') {
 *     yield { type: 'toolResult', toolResult: { type: 'toolResult', toolUseId: context.toolUse.toolUseId, name: context.toolUse.name, status: 'error', content: [{ type: 'text', text: 'Blocked.' }] } };
 *     return;
 *   }
 *   yield* next();
 * });
 * ```
 */
export const ExecuteToolStage: MiddlewareStage<ExecuteToolContext, ToolResultEvent, ExecuteToolEvent> = standardStages.executeTool;

/**
 * One whole agent run (every model call and tool call of it): the context is
 * the run's input, the events are everything the run yields, the result says how it ended.
 */
export const AgentStreamStage: MiddlewareStage<AgentStreamContext, AgentResultEvent, AgentEvent> = standardStages.agentStream;

/**
 * The decision after each turn (one model call and the tool calls it asked
 * for): the context describes the turn, the result says whether the loop goes
 * on, calls the model again or stops, and which messages it adds.
 *
 * @example
 * ```ts
 * registry.add(TurnStage.Wrap, turnAction(function tenTurns(context) {
 *   return context.turn.index >= 10 ? { decision: 'stop', reason: 'ten turns' } : undefined;
 * }));
 * ```
 */
export const TurnStage: MiddlewareStage<TurnContext, TurnResultEvent, TurnEvent> = loopStages.turn;

/**
 * Context compression: invoked before a model call whose history counts more
 * tokens than a budget a bundle contributed allows. The context carries the
 * history and the count; the result is the history to go on with (the
 * terminal keeps it as it is), so any middleware can take compression over.
 *
 * @example
 * ```ts
 * registry.add(CompressContextStage.Wrap, async function* keepLastTen(context) {
 *   yield { type: 'contextResult', messages: context.messages.slice(-10) };
 * });
 * ```
 */
export const CompressContextStage: MiddlewareStage<CompressContextContext, ContextResultEvent, ContextResultEvent> =
  contextStages.compressContext;
