/**
 * `compaction()`: keeps a long history within a context budget by
 * summarising its older messages into one (MW-167).
 */
import type { Middleware } from '../../core/index';
import { invalidOption } from '../../middleware/errors';
import { checkOptionsObject, optionalFunction } from '../../middleware/options';
import { named } from '../../middleware/named';
import type { Next, HandlerCall } from '../../core/index';
import { ContextBudgetKey } from '../loop/context-budget';
import type { CompressContextContext, ContextResultEvent, TokenCounter } from '../types/stages';
import type { CachePointBlock, ContentBlock, Message } from '../types/message';
import type { Model } from '../types/model';
import { CompressContextStage, isContextResult } from '../stages';
import { isObject } from '../../util/is-object';

/** How the summary is written. */
export interface SummarizeOptions {
  /** The summary call's system prompt. Default: {@link DEFAULT_SUMMARY_INSTRUCTIONS}. */
  readonly instructions?: string;
  /** The model that writes it. Default: the agent's. */
  readonly model?: Model;
}

/** Options of {@link compaction}. */
export interface CompactionOptions {
  /** The budget: before a model call, the history is compacted when it counts more tokens than this. */
  readonly maxTokens: number;
  /** Messages kept as they are at the end of the history (more when a tool use would be parted from its result). Default 4. */
  readonly keepRecent?: number;
  /** How the summary is written. */
  readonly summarize?: SummarizeOptions;
  /** How the history is counted. Default: `estimateTokens`. */
  readonly countTokens?: TokenCounter;
}

/** The system prompt of the summary call unless `summarize.instructions` says otherwise. */
export const DEFAULT_SUMMARY_INSTRUCTIONS =
  'You summarise a conversation between a user and an assistant that uses tools, for the assistant that continues it. Keep the goals, the decisions, the facts the tools returned and the open questions. Be brief.';

/** What the summary call's one user message starts with, before the transcript. */
const TRANSCRIPT_HEADING = 'Summarise this conversation:';

/** What the summary message starts with, before the summary. */
export const SUMMARY_HEADING = 'Summary of the earlier conversation:';

/**
 * A bundle named `compaction` that provides a context budget of `maxTokens`
 * and compresses the history when it is exceeded: the messages before the
 * last `keepRecent` (moved back so that no tool result is parted from its
 * tool use) are summarised by a model call made through InvokeModelStage on
 * the run's behalf (`caller: 'compaction'`, its usage in `middlewareUsage`),
 * and replaced by one user message holding the summary. The system prompt is
 * not part of the history and stays as it is; a cache point among the
 * summarised messages is kept at the end of the summary message.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`handler: 'compaction'`) at once for bad options.
 * @example
 * ```ts
 * registry.use(compaction({ maxTokens: 50_000, keepRecent: 6 }));
 * ```
 */
export function compaction(options: CompactionOptions): Middleware {
  checkOptionsObject('compaction', options, '{ maxTokens, keepRecent?, summarize?, countTokens? }');
  const { maxTokens, summarize } = options;
  if (typeof maxTokens !== 'number' || !(maxTokens >= 0))
    throw invalidOption('compaction', 'options.maxTokens must be a number >= 0', maxTokens);
  const keepRecent = options.keepRecent ?? 4;
  if (typeof keepRecent !== 'number' || !Number.isInteger(keepRecent) || keepRecent < 0)
    throw invalidOption('compaction', 'options.keepRecent must be an integer >= 0', keepRecent);
  const countTokens = optionalFunction('compaction', 'countTokens', options.countTokens);
  if (summarize !== undefined && !isObject(summarize))
    throw invalidOption('compaction', 'options.summarize must be { instructions?, model? }', summarize);
  const instructions = summarize?.instructions ?? DEFAULT_SUMMARY_INSTRUCTIONS;
  if (typeof instructions !== 'string') throw invalidOption('compaction', 'options.summarize.instructions must be a string', instructions);
  const model = summarize?.model;
  if (model !== undefined && (!isObject(model) || typeof model.stream !== 'function'))
    throw invalidOption('compaction', 'options.summarize.model must be a model with stream()', model);

  const handler = async function* (
    context: CompressContextContext,
    next: Next<CompressContextContext, ContextResultEvent>,
    run: HandlerCall,
  ): AsyncGenerator<ContextResultEvent, void, undefined> {
    // Inner layers decide first (a pruning pass, say); this one summarises what they leave.
    let last: ContextResultEvent | undefined;
    for await (const event of next()) {
      if (last !== undefined) yield last;
      last = event;
    }
    if (last === undefined) return;
    if (!isContextResult(last)) {
      yield last;
      return;
    }
    const { messages } = last;
    const split = splitPoint(messages, keepRecent);
    if (split === 0) {
      yield last;
      return;
    }
    const older = messages.slice(0, split);
    const result = await context.invokeModel({
      caller: run.handler,
      messages: [{ role: 'user', content: [{ type: 'text', text: `${TRANSCRIPT_HEADING}\n\n${transcript(older)}` }] }],
      systemPrompt: instructions,
      ...(model === undefined ? {} : { model }),
    });
    const summary = result.message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    const cachePoint = lastCachePoint(older);
    const content: ContentBlock[] = [{ type: 'text', text: `${SUMMARY_HEADING}\n${summary}` }];
    if (cachePoint !== undefined) content.push({ type: 'cachePoint', cacheType: cachePoint.cacheType });
    yield Object.freeze({
      type: 'contextResult',
      messages: Object.freeze([{ role: 'user', content } satisfies Message, ...messages.slice(split)]),
    });
  };
  return {
    name: 'compaction',
    setup(registrar) {
      registrar.provide(ContextBudgetKey, countTokens === undefined ? { maxTokens } : { maxTokens, countTokens });
      registrar.add(CompressContextStage.Wrap, named('compaction', handler));
    },
  };
}

/**
 * Where the kept messages start: `keepRecent` from the end, moved back while
 * the first kept message holds a tool result (its tool use comes with it).
 * 0 means there is nothing to summarise.
 */
export function splitPoint(messages: readonly Message[], keepRecent: number): number {
  let split = Math.max(0, messages.length - keepRecent);
  while (split > 0 && messages[split]?.content.some((block) => block.type === 'toolResult') === true) split--;
  return split;
}

/**
 * The transcript the summary call reads: one line per message, `<role>:`
 * and its blocks separated by spaces: text as it is, a tool use as
 * `[tool call <name> <input JSON>]`, a tool result as `[tool result <status>:
 * <content>]` (text as it is, JSON as JSON text, joined with spaces);
 * reasoning and cache points are left out.
 */
export function transcript(messages: readonly Message[]): string {
  return messages
    .map((message) => {
      const parts = message.content.flatMap((block): string[] => {
        switch (block.type) {
          case 'text':
            return [block.text];
          case 'toolUse':
            return [`[tool call ${block.name} ${(JSON.stringify(block.input) as string | undefined) ?? 'null'}]`];
          case 'toolResult':
            return [
              `[tool result ${block.status}: ${block.content.map((part) => (part.type === 'text' ? part.text : ((JSON.stringify(part.json) as string | undefined) ?? 'null'))).join(' ')}]`,
            ];
          default:
            return [];
        }
      });
      return `${message.role}: ${parts.join(' ')}`;
    })
    .join('\n');
}

/** The last cache point among the messages, if any. */
function lastCachePoint(messages: readonly Message[]): CachePointBlock | undefined {
  let found: CachePointBlock | undefined;
  for (const message of messages) for (const block of message.content) if (block.type === 'cachePoint') found = block;
  return found;
}
