/**
 * What `compaction` summarises and how it writes the summary (MW-167,
 * MW-175 – MW-177): where the kept tail starts, the transcript the summary
 * call reads, the cap on the summary, the summary a run carries forward, and
 * the summary written without a model when the summariser fails.
 */
import type { Message, ToolResultBlock } from '../types/message';
import type { TokenCounter } from '../types/stages';
import { resultPartTexts } from '../tools/tool-result-text';
import { jsonText } from '../values/json-value';

/** What the summary message starts with, before the summary. */
export const SUMMARY_HEADING = 'Summary of the earlier conversation:';

/** What the fallback summary starts with, so the model knows it reads shortened messages, not a summary. */
export const FALLBACK_HEADING = 'The summary could not be written; the earlier messages follow, shortened:';

/** Code units per token of the estimate (MW-165), the unit of the summary cap. */
const UNITS_PER_TOKEN = 4;

/** How long a tool output the fallback summary keeps when `pruneToolOutputs` says nothing. */
const FALLBACK_TOOL_OUTPUT = 200;

/** How many tokens the fallback summary holds when `maxSummaryTokens` says nothing. */
const FALLBACK_TOKENS = 1000;

/** How the kept tail is chosen. */
export interface TailOptions {
  /** At least this many messages are kept. */
  readonly keepRecent: number;
  /** More messages are kept while the tail counts no more than this. */
  readonly keepRecentTokens: number | undefined;
  /** How a tail is counted. */
  readonly countTokens: TokenCounter;
}

/**
 * Where the kept messages start: `keepRecent` from the end, moved back while
 * the tail one message longer still counts at most `keepRecentTokens`, then
 * moved back while the first kept message holds a tool result (its tool use
 * comes with it). 0 means there is nothing to summarise.
 */
export function splitPoint(messages: readonly Message[], { keepRecent, keepRecentTokens, countTokens }: TailOptions): number {
  let split = Math.max(0, messages.length - keepRecent);
  if (keepRecentTokens !== undefined) while (split > 0 && countTokens(messages.slice(split - 1)) <= keepRecentTokens) split--;
  while (split > 0 && messages[split]?.content.some((block) => block.type === 'toolResult') === true) split--;
  return split;
}

/**
 * The transcript the summary call reads: one line per message, `<role>:`
 * and its blocks separated by spaces: text as it is, a tool use as
 * `[tool call <name> <input JSON>]`, a tool result as `[tool result <status>:
 * <content>]` (text as it is, JSON as JSON text, joined with spaces), its
 * content cut to `pruneToolOutputs` code units when longer; reasoning and
 * cache points are left out.
 */
export function transcript(messages: readonly Message[], pruneToolOutputs?: number): string {
  return messages
    .map((message) => {
      const parts = message.content.flatMap((block): string[] => {
        switch (block.type) {
          case 'text':
            return [block.text];
          case 'toolUse':
            return [`[tool call ${block.name} ${jsonText(block.input)}]`];
          case 'toolResult':
            return [`[tool result ${block.status}: ${toolOutput(block, pruneToolOutputs)}]`];
          default:
            return [];
        }
      });
      return `${message.role}: ${parts.join(' ')}`;
    })
    .join('\n');
}

/** A tool result's content as the transcript writes it, pruned to `limit` code units with its full length said. */
function toolOutput(block: ToolResultBlock, limit: number | undefined): string {
  const text = resultPartTexts(block.content).join(' ');
  if (limit === undefined || text.length <= limit) return text;
  return `${head(text, limit)} … (${text.length} characters)`;
}

/** The first `units` code units of `text`, one fewer when the cut would part a surrogate pair. */
function head(text: string, units: number): string {
  const code = text.charCodeAt(units - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? units - 1 : units);
}

/** The last `units` code units of `text`, one fewer when the cut would part a surrogate pair. */
function tail(text: string, units: number): string {
  const start = text.length - units;
  const code = text.charCodeAt(start);
  return text.slice(code >= 0xdc00 && code <= 0xdfff ? start + 1 : start);
}

/** The summary cut to `maxTokens` of the estimate (4 code units a token) when longer; as it is without a cap. */
export function capSummary(summary: string, maxTokens: number | undefined): string {
  if (maxTokens === undefined || summary.length <= maxTokens * UNITS_PER_TOKEN) return summary;
  return head(summary, maxTokens * UNITS_PER_TOKEN);
}

/**
 * The summary written without a model: {@link FALLBACK_HEADING}, a line
 * break, and the end of the transcript of `messages` (tool outputs pruned to
 * `pruneToolOutputs`, default 200 code units) that fits `maxSummaryTokens`
 * (default 1000) tokens of the estimate.
 */
export function fallbackSummary(
  messages: readonly Message[],
  pruneToolOutputs: number | undefined,
  maxSummaryTokens: number | undefined,
): string {
  const text = transcript(messages, pruneToolOutputs ?? FALLBACK_TOOL_OUTPUT);
  const units = (maxSummaryTokens ?? FALLBACK_TOKENS) * UNITS_PER_TOKEN;
  return `${FALLBACK_HEADING}\n${text.length <= units ? text : tail(text, units)}`;
}

/**
 * The summary text an earlier compaction left at the start of the history:
 * the first message, a user message whose first block is a text block
 * starting with {@link SUMMARY_HEADING} and a line break, read after them.
 */
export function previousSummary(messages: readonly Message[]): string | undefined {
  const first = messages[0];
  if (first?.role !== 'user') return undefined;
  const block = first.content[0];
  if (block?.type !== 'text' || !block.text.startsWith(`${SUMMARY_HEADING}\n`)) return undefined;
  return block.text.slice(SUMMARY_HEADING.length + 1);
}
