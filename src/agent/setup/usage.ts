import type { Usage } from '../types/model';

/** Usage of a call whose model reported none. */
export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/** The sum of two token counts (frozen). */
export function addUsage(total: Usage, more: Usage): Usage {
  return Object.freeze({
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    totalTokens: total.totalTokens + more.totalTokens,
  });
}
