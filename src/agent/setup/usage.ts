/**
 * Token counts added up (MW-310): what a loop reports as a run's usage, the
 * sum over its model calls, as the reference agent sums them.
 */
import { describeValue } from '../../util/describe-value';
import { isObject } from '../../util/is-object';
import { invalidUsage } from '../errors';
import type { Usage } from '../types/model';

/**
 * The usage of no model call, where a sum starts (frozen).
 *
 * @example
 * ```ts
 * let usage = ZERO_USAGE;
 * ```
 */
export const ZERO_USAGE: Usage = /*#__PURE__*/ Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/**
 * The sum of two token counts, count by count (frozen): a loop adds each model
 * result's `usage` to its run's total, which its TurnStage context and its
 * `agentResult` report.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `invokeModel`) when either is not
 *   `{ inputTokens, outputTokens, totalTokens }` of finite numbers (an Output handler's broken result, say).
 * @example
 * ```ts
 * const context = createModelContext({ model, messages: [], systemPrompt: undefined, toolSpecs: [], invocationState: {} });
 * let usage = ZERO_USAGE;
 * for await (const event of registry.invoke(InvokeModelStage, context, modelTerminal)) {
 *   if (event.type === 'modelResult') usage = addUsage(usage, event.usage);
 * }
 * ```
 */
export function addUsage(total: Usage, more: Usage): Usage {
  if (!isUsage(total)) throw invalidUsage(`addUsage(total, more): total ${USAGE_EXPECTED}, got ${describeValue(total)}`);
  if (!isUsage(more)) throw invalidUsage(`addUsage(total, more): more ${USAGE_EXPECTED}, got ${describeValue(more)}`);
  return Object.freeze({
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    totalTokens: total.totalTokens + more.totalTokens,
  });
}

/** What a usage must be, for the messages of those who check one. */
export const USAGE_EXPECTED = 'must be { inputTokens, outputTokens, totalTokens } (finite numbers)';

/** Whether `value` is token counts: an object whose three counts are finite numbers. */
export function isUsage(value: unknown): value is Usage {
  if (!isObject(value)) return false;
  const { inputTokens, outputTokens, totalTokens } = value as Partial<Usage>;
  return Number.isFinite(inputTokens) && Number.isFinite(outputTokens) && Number.isFinite(totalTokens);
}
