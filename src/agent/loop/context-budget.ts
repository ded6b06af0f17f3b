/**
 * Context budgets and the compression step of the reference loop
 * (MW-163 – MW-165): before each model call, the history is counted against
 * every budget in scope; when one is exceeded, CompressContextStage decides
 * what the history becomes, and the replaced messages go out on the stream.
 */
import { describeValue } from '../../util/describe-value';
import { createContributionKey, type ContributionKey } from '../../core/index';
import type { TerminalCall } from '../../core/index';

import type {
  CompressContextContext,
  ContextBudget,
  ContextCompressedEvent,
  ContextResultEvent,
  MiddlewareModelCaller,
} from '../types/stages';
import type { History } from '../session/history';
import type { Message } from '../types/message';
import type { Model } from '../types/model';
import type { AgentView } from '../types/view';
import { CompressContextStage, isContextResult } from '../stages';
import type { SystemContentBlock } from '../../core/index';
import type { ToolSpec } from '../types/tool';
import type { MiddlewareRegistry } from '../../core/index';
import { invalidCompression } from '../errors';
import { checkMessageShapes } from '../values/checked-messages';

/**
 * The key bundles provide context budgets under (the `compaction` bundle
 * provides its `maxTokens`). Budgets have no id: several may be in scope.
 *
 * @example
 * ```ts
 * registry.use({ name: 'budget', setup: (registrar) => void registrar.provide(ContextBudgetKey, { maxTokens: 100_000 }) });
 * ```
 */
export const ContextBudgetKey: ContributionKey<ContextBudget> = createContributionKey<ContextBudget>(
  'staged-middleware.agent.context-budgets',
  { stage: CompressContextStage },
);

/** The estimate of each message, computed once: messages are frozen and kept by identity. */
const estimates = new WeakMap<Message, number>();

/**
 * The default token count, a cheap estimate: for each message, the length of
 * its JSON text (`JSON.stringify`, in UTF-16 code units) divided by four and
 * rounded up, summed. Real tokenizers differ by a margin; leave headroom in
 * `maxTokens`, or give a counter of your own.
 *
 * @example
 * ```ts
 * estimateTokens([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]); // 12
 * ```
 */
export function estimateTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) {
    let estimate = Object.isFrozen(message) ? estimates.get(message) : undefined;
    if (estimate === undefined) {
      estimate = Math.ceil(JSON.stringify(message).length / 4);
      if (Object.isFrozen(message)) estimates.set(message, estimate);
    }
    total += estimate;
  }
  return total;
}

/**
 * A budget as a bundle provided it, checked when a run starts.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `compressContext`) for a budget without a `maxTokens` number
 *   >= 0 or with a `countTokens` that is not a function.
 */
export function readBudget(budget: unknown, bundle: string): ContextBudget {
  const value = budget as Partial<ContextBudget> | null;
  const valid =
    typeof value === 'object' &&
    value !== null &&
    typeof value.maxTokens === 'number' &&
    value.maxTokens >= 0 &&
    (value.countTokens === undefined || typeof value.countTokens === 'function');
  if (!valid)
    throw invalidCompression(
      `bundle "${bundle}" provides a context budget that is not { maxTokens: number >= 0, countTokens?: (messages) => number }: ${describeValue(budget)}`,
    );
  return budget as ContextBudget;
}

/**
 * The terminal of CompressContextStage: keeps the history as it is.
 *
 * @example
 * ```ts
 * declare const compressContext: CompressContextContext;
 * const { messages } = await registry.run(CompressContextStage, compressContext, compressTerminal);
 * ```
 */
export async function* compressTerminal(
  context: CompressContextContext,
  _run: TerminalCall<unknown>,
): AsyncGenerator<ContextResultEvent, void, undefined> {
  yield Object.freeze({ type: 'contextResult', messages: context.messages });
}

/** What the compression step needs of the run. */
export interface CompressionRun {
  /** Where the stage is invoked. */
  readonly registry: MiddlewareRegistry;
  /** The budgets in scope. */
  readonly budgets: readonly ContextBudget[];
  /** The history the step may replace. */
  readonly history: History;
  /** The system prompt of the agent's model calls. */
  readonly systemPrompt: readonly SystemContentBlock[];
  /** The tool specs of the agent's model calls. */
  readonly toolSpecs: readonly ToolSpec[];
  /** The agent's model. */
  readonly model: Model;
  /** Makes middleware-owned model calls. */
  readonly invokeModel: MiddlewareModelCaller;
  /** The run's invocation state. */
  readonly invocationState: Record<string, unknown>;
  /** The agent view. */
  readonly agent: AgentView;
  /** The run signal. */
  readonly signal: AbortSignal;
}

/**
 * Before a model call: when the history counts more than a budget allows
 * (the first, in contribution order), invokes CompressContextStage and
 * replaces the history with its result, yielding a `contextCompressed` event.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `compressContext`) for a count that is not a number >= 0 or a
 *   result that is not a `contextResult` holding well-formed messages.
 */
export async function* compressIfOver(run: CompressionRun): AsyncGenerator<ContextCompressedEvent, void, undefined> {
  if (run.budgets.length === 0) return;
  const messages = run.history.messages;
  let over: { tokens: number; maxTokens: number } | undefined;
  for (const budget of run.budgets) {
    const tokens = (budget.countTokens ?? estimateTokens)(messages) as unknown;
    if (typeof tokens !== 'number' || !(tokens >= 0))
      throw invalidCompression(`a token counter returned ${describeValue(tokens)}, not a number >= 0`);
    if (tokens > budget.maxTokens) {
      over = { tokens, maxTokens: budget.maxTokens };
      break;
    }
  }
  if (over === undefined) return;
  const context: CompressContextContext = Object.freeze({
    messages,
    tokens: over.tokens,
    maxTokens: over.maxTokens,
    systemPrompt: run.systemPrompt,
    toolSpecs: run.toolSpecs,
    model: run.model,
    invokeModel: run.invokeModel,
    invocationState: run.invocationState,
    agent: run.agent,
  });
  let last: unknown;
  for await (const event of run.registry.invoke(CompressContextStage, context, compressTerminal, { signal: run.signal })) last = event;
  const next = readContextResult(last);
  if (next === messages) return;
  run.history.replace(next);
  yield Object.freeze({
    type: 'contextCompressed',
    replaced: messages,
    messages: run.history.messages,
    tokens: over.tokens,
    maxTokens: over.maxTokens,
  });
}

/** The messages of a delivered CompressContextStage result, checked. */
function readContextResult(result: unknown): readonly Message[] {
  const messages = isContextResult(result) && Array.isArray(result.messages) ? (result.messages as readonly unknown[]) : undefined;
  if (messages === undefined) {
    throw invalidCompression(`the result must be { type: 'contextResult', messages }, got ${describeValue(result)}`);
  }
  checkMessageShapes(messages, 'messages', invalidCompression);
  return messages as readonly Message[];
}
