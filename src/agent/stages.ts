import { createStage, isStage } from '../stage/create-stage';
import type { MiddlewareStage } from '../stage/types';
import { foreignStandardStage } from './errors';
import type {
  AgentEvent,
  AgentResultEvent,
  AgentStreamContext,
  ExecuteToolContext,
  InvokeModelContext,
  InvokeModelEvent,
  ModelResultEvent,
  ToolResultEvent,
} from './stage-types';

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

/** The three standard stages, as one copy of the package publishes them for the realm. */
interface StandardStages {
  /** {@link InvokeModelStage}. */
  readonly invokeModel: MiddlewareStage<InvokeModelContext, ModelResultEvent, InvokeModelEvent>;
  /** {@link ExecuteToolStage}. */
  readonly executeTool: MiddlewareStage<ExecuteToolContext, ToolResultEvent, ToolResultEvent>;
  /** {@link AgentStreamStage}. */
  readonly agentStream: MiddlewareStage<AgentStreamContext, AgentResultEvent, AgentEvent>;
}

/**
 * Where the standard stages of a realm live (MW-200). Handlers are matched to
 * stages by identity, so stages created per copy would let a guard registered
 * through the ESM build (or one installed copy) be skipped by an agent of the
 * CommonJS build (or another copy). `v1` names the stages' contract: a copy
 * whose stage contexts, events or results differ publishes under another key.
 */
const STANDARD_STAGES_KEY = Symbol.for('staged-middleware.agent.standard-stages.v1');

/**
 * The realm's standard stages: the ones a copy loaded earlier published, else
 * new ones, published for every copy loaded later.
 *
 * @throws MiddlewareError `ERR_INVALID_STAGE` when the key holds anything but three genuine stages with the standard names.
 */
function realmStandardStages(): StandardStages {
  const published = (globalThis as unknown as Record<symbol, unknown>)[STANDARD_STAGES_KEY];
  if (published !== undefined) return checkPublished(published);
  const stages: StandardStages = Object.freeze({
    invokeModel: createStage<InvokeModelContext, ModelResultEvent, InvokeModelEvent>('invokeModel', { isResult: isModelResult }),
    executeTool: createStage<ExecuteToolContext, ToolResultEvent, ToolResultEvent>('executeTool', { isResult: isToolResult }),
    agentStream: createStage<AgentStreamContext, AgentResultEvent, AgentEvent>('agentStream', { isResult: isAgentResult }),
  });
  // Not writable, not configurable: once published, no code can swap the
  // stages out from under handlers registered on them.
  Object.defineProperty(globalThis, STANDARD_STAGES_KEY, { value: stages, writable: false, enumerable: false, configurable: false });
  return stages;
}

function checkPublished(published: unknown): StandardStages {
  for (const name of ['invokeModel', 'executeTool', 'agentStream'] as const) {
    const stage = typeof published === 'object' && published !== null ? (published as Record<string, unknown>)[name] : undefined;
    if (!isStage(stage) || stage.name !== name) {
      throw foreignStandardStage(name, stage);
    }
  }
  return published as StandardStages;
}

const standardStages = realmStandardStages();

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
 *     yield { type: 'toolResult', toolResult: { type: 'toolResult', toolUseId: context.toolUse.toolUseId, status: 'error', content: [{ type: 'text', text: 'Blocked.' }] } };
 *     return;
 *   }
 *   yield* next();
 * });
 * ```
 */
export const ExecuteToolStage: MiddlewareStage<ExecuteToolContext, ToolResultEvent, ToolResultEvent> = standardStages.executeTool;

/**
 * One whole agent run (every model call and tool call of it): the context is
 * the run's input, the events are everything the run yields, the result says how it ended.
 */
export const AgentStreamStage: MiddlewareStage<AgentStreamContext, AgentResultEvent, AgentEvent> = standardStages.agentStream;
