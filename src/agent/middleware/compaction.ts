/**
 * `compaction()`: keeps a long history within a context budget by
 * summarising its older messages into one (MW-167, MW-175 – MW-179).
 */
import type { Middleware } from '../../core/index';
import { invalidOption, isAbortError, isInterruptSignal } from '../../middleware/errors';
import { checkOptionsObject, optionalFunction, positiveInteger } from '../../middleware/options';
import { named } from '../../middleware/named';
import type { Next, HandlerCall } from '../../core/index';
import { ContextBudgetKey, estimateTokens } from '../loop/context-budget';
import type { CompressContextContext, ContextResultEvent, TokenCounter } from '../types/stages';
import type { CachePointBlock, ContentBlock, Message } from '../types/message';
import type { Model } from '../types/model';
import { CompressContextStage, isContextResult } from '../stages';
import { isObject } from '../../util/is-object';
import { refuseUnknownOptions } from './known-options';
import { capSummary, fallbackSummary, previousSummary, splitPoint, SUMMARY_HEADING, transcript } from './compaction-summary';
import { CompactionStateKey, readCompactionState, type CompactionState } from './compaction-state';

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
  /** More recent messages are kept as they are while the kept tail counts no more than this many tokens. Default: none beyond `keepRecent`. */
  readonly keepRecentTokens?: number;
  /** Fewer messages than this to summarise and the history stays as it is. Default 1. */
  readonly minMessages?: number;
  /** The summary's cap in tokens of the estimate (4 characters a token): asked of the summariser, and a longer summary is cut. */
  readonly maxSummaryTokens?: number;
  /** Tool outputs longer than this many characters are cut in what the summariser reads. Default: none cut. */
  readonly pruneToolOutputs?: number;
  /** Keep the summary an earlier compaction left as it is and summarise only what follows it. Default true. */
  readonly carrySummary?: boolean;
  /** When the summary call fails, compact with the fallback summary instead of failing the run. Default true. */
  readonly fallback?: boolean;
  /** After this many failed summary calls in a row, the run's later compactions use the fallback without calling the model. Default 3. */
  readonly maxFailures?: number;
  /** After a compaction that saved less than this fraction of the tokens, compaction waits for more new messages. Default 0.1; 0 never waits. */
  readonly minSavings?: number;
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

const KNOWN_OPTIONS = [
  'maxTokens',
  'keepRecent',
  'keepRecentTokens',
  'minMessages',
  'maxSummaryTokens',
  'pruneToolOutputs',
  'carrySummary',
  'fallback',
  'maxFailures',
  'minSavings',
  'summarize',
  'countTokens',
];

const SHAPE =
  '{ maxTokens, keepRecent?, keepRecentTokens?, minMessages?, maxSummaryTokens?, pruneToolOutputs?, carrySummary?, fallback?, maxFailures?, minSavings?, summarize?, countTokens? }';

/** The options after their checks, defaults filled in. */
interface CompactionSettings {
  readonly keepRecent: number;
  readonly keepRecentTokens: number | undefined;
  readonly minMessages: number;
  readonly maxSummaryTokens: number | undefined;
  readonly pruneToolOutputs: number | undefined;
  readonly carrySummary: boolean;
  readonly fallback: boolean;
  readonly maxFailures: number;
  readonly minSavings: number;
  readonly instructions: string;
  readonly model: Model | undefined;
  readonly count: TokenCounter;
}

/**
 * A bundle named `compaction` that provides a context budget of `maxTokens`
 * and compresses the history when it is exceeded: the messages before the
 * kept tail (the last `keepRecent`, more while they fit `keepRecentTokens`,
 * moved back so that no tool result is parted from its tool use) are
 * summarised by a model call made through InvokeModelStage on the run's
 * behalf (`caller: 'compaction'`, its usage in `middlewareUsage`), and
 * replaced by one user message holding the summary. A summary an earlier
 * compaction left is carried forward as it is; a failed summary call
 * compacts with a fallback summary written without a model, and after
 * `maxFailures` in a row the run stops asking; a compaction that saved
 * little is not repeated until enough new messages arrive. What it did is
 * in the run's invocation state under {@link CompactionStateKey}. The system
 * prompt is not part of the history and stays as it is; a cache point among
 * the summarised messages is kept at the end of the summary message.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`handler: 'compaction'`) at once for bad or unknown options.
 * @example
 * ```ts
 * registry.use(compaction({ maxTokens: 50_000, keepRecent: 6, keepRecentTokens: 8_000, maxSummaryTokens: 1_000, pruneToolOutputs: 2_000 }));
 * ```
 */
export function compaction(options: CompactionOptions): Middleware {
  const { maxTokens, countTokens, settings } = readOptions(options);
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
    yield isContextResult(last) ? await compact(context, last, run, settings) : last;
  };
  return {
    name: 'compaction',
    setup(registrar) {
      registrar.provide(ContextBudgetKey, countTokens === undefined ? { maxTokens } : { maxTokens, countTokens });
      registrar.add(CompressContextStage.Wrap, named('compaction', handler));
    },
  };
}

/** Checks every option, in the order of {@link CompactionOptions}, and fills in the defaults. */
function readOptions(options: CompactionOptions): {
  maxTokens: number;
  countTokens: TokenCounter | undefined;
  settings: CompactionSettings;
} {
  checkOptionsObject('compaction', options, SHAPE);
  refuseUnknownOptions('compaction', options, KNOWN_OPTIONS, SHAPE);
  const { maxTokens, summarize } = options;
  if (typeof maxTokens !== 'number' || !(maxTokens >= 0))
    throw invalidOption('compaction', 'options.maxTokens must be a number >= 0', maxTokens);
  const keepRecent = options.keepRecent ?? 4;
  if (typeof keepRecent !== 'number' || !Number.isInteger(keepRecent) || keepRecent < 0)
    throw invalidOption('compaction', 'options.keepRecent must be an integer >= 0', keepRecent);
  const optionalCount = (name: string, value: unknown): number | undefined =>
    value === undefined ? undefined : positiveInteger('compaction', `options.${name}`, value);
  const keepRecentTokens = optionalCount('keepRecentTokens', options.keepRecentTokens);
  const minMessages = optionalCount('minMessages', options.minMessages) ?? 1;
  const maxSummaryTokens = optionalCount('maxSummaryTokens', options.maxSummaryTokens);
  const pruneToolOutputs = optionalCount('pruneToolOutputs', options.pruneToolOutputs);
  const carrySummary = optionalBoolean('carrySummary', options.carrySummary) ?? true;
  const fallback = optionalBoolean('fallback', options.fallback) ?? true;
  const maxFailures = optionalCount('maxFailures', options.maxFailures) ?? 3;
  const minSavings = options.minSavings ?? 0.1;
  if (typeof minSavings !== 'number' || !(minSavings >= 0 && minSavings < 1))
    throw invalidOption('compaction', 'options.minSavings must be a number >= 0 and < 1', minSavings);
  const countTokens = optionalFunction('compaction', 'countTokens', options.countTokens);
  if (summarize !== undefined && !isObject(summarize))
    throw invalidOption('compaction', 'options.summarize must be { instructions?, model? }', summarize);
  if (summarize !== undefined)
    refuseUnknownOptions('compaction', summarize, ['instructions', 'model'], '{ instructions?, model? } in options.summarize');
  const instructions = summarize?.instructions ?? DEFAULT_SUMMARY_INSTRUCTIONS;
  if (typeof instructions !== 'string') throw invalidOption('compaction', 'options.summarize.instructions must be a string', instructions);
  const model = summarize?.model;
  if (model !== undefined && (!isObject(model) || typeof model.stream !== 'function'))
    throw invalidOption('compaction', 'options.summarize.model must be a model with stream()', model);
  return {
    maxTokens,
    countTokens,
    settings: {
      keepRecent,
      keepRecentTokens,
      minMessages,
      maxSummaryTokens,
      pruneToolOutputs,
      carrySummary,
      fallback,
      maxFailures,
      minSavings,
      instructions: maxSummaryTokens === undefined ? instructions : `${instructions}\n\nKeep the summary under ${maxSummaryTokens} tokens.`,
      model,
      count: countTokens ?? estimateTokens,
    },
  };
}

/** A boolean option, or undefined when not given. */
function optionalBoolean(name: string, value: unknown): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') throw invalidOption('compaction', `options.${name} must be a boolean`, value);
  return value;
}

/** The history one activation goes on with: `result` itself when it leaves it as it is (MW-167, MW-175, MW-178). */
async function compact(
  context: CompressContextContext,
  result: ContextResultEvent,
  run: HandlerCall,
  settings: CompactionSettings,
): Promise<ContextResultEvent> {
  const { messages } = result;
  const carried = settings.carrySummary ? previousSummary(messages) : undefined;
  const start = carried === undefined ? 0 : 1;
  const split = splitPoint(messages, {
    keepRecent: settings.keepRecent,
    keepRecentTokens: settings.keepRecentTokens,
    countTokens: settings.count,
  });
  const older = messages.slice(start, Math.max(start, split));
  if (older.length === 0 || older.length < settings.minMessages) return result;
  const state = readCompactionState(context);
  if (state !== undefined && thrashing(state, context, messages.length, settings)) return result;
  const written = await writeSummary(context, older, run, settings, state);
  const summary = carried === undefined ? written.summary : `${carried}\n\n${written.summary}`;
  const cachePoint = lastCachePoint(messages.slice(0, split));
  const content: ContentBlock[] = [{ type: 'text', text: `${SUMMARY_HEADING}\n${summary}` }];
  if (cachePoint !== undefined) content.push({ type: 'cachePoint', cacheType: cachePoint.cacheType });
  const kept = Object.freeze([{ role: 'user', content } satisfies Message, ...messages.slice(split)]);
  const before = settings.count(messages);
  CompactionStateKey.set(
    context,
    Object.freeze({
      summary,
      fallback: written.fallback,
      compactions: (state?.compactions ?? 0) + 1,
      failures: written.failures,
      saved: before > 0 ? (before - settings.count(kept)) / before : 0,
      length: kept.length,
    }),
  );
  return Object.freeze({ type: 'contextResult', messages: kept });
}

/**
 * True while the run's latest compaction saved less than `minSavings` and
 * the history has not yet gained `keepRecent + minMessages` messages since,
 * unless it counts more than twice its budget (MW-178).
 */
function thrashing(state: CompactionState, context: CompressContextContext, length: number, settings: CompactionSettings): boolean {
  if (state.saved >= settings.minSavings) return false;
  if (context.tokens > 2 * context.maxTokens) return false;
  return length - state.length < settings.keepRecent + settings.minMessages;
}

/** The new part of the summary: the model's, or the fallback when the call fails or the breaker is open (MW-177). */
async function writeSummary(
  context: CompressContextContext,
  older: readonly Message[],
  run: HandlerCall,
  settings: CompactionSettings,
  state: CompactionState | undefined,
): Promise<{ summary: string; fallback: boolean; failures: number }> {
  const failures = state?.failures ?? 0;
  const fallback = (): string => fallbackSummary(older, settings.pruneToolOutputs, settings.maxSummaryTokens);
  if (settings.fallback && failures >= settings.maxFailures) return { summary: fallback(), fallback: true, failures };
  try {
    const result = await context.invokeModel({
      caller: run.handler,
      messages: [
        { role: 'user', content: [{ type: 'text', text: `${TRANSCRIPT_HEADING}\n\n${transcript(older, settings.pruneToolOutputs)}` }] },
      ],
      systemPrompt: settings.instructions,
      ...(settings.model === undefined ? {} : { model: settings.model }),
    });
    const text = result.message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    return { summary: capSummary(text, settings.maxSummaryTokens), fallback: false, failures: 0 };
  } catch (error) {
    // A cancelled run and a question to a human are no failures of the summariser.
    if (!settings.fallback || run.signal.aborted || isAbortError(error) || isInterruptSignal(error)) throw error;
    return { summary: fallback(), fallback: true, failures: failures + 1 };
  }
}

/** The last cache point among the messages, if any. */
function lastCachePoint(messages: readonly Message[]): CachePointBlock | undefined {
  let found: CachePointBlock | undefined;
  for (const message of messages) for (const block of message.content) if (block.type === 'cachePoint') found = block;
  return found;
}
