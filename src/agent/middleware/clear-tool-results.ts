/**
 * `clearToolResults()`: context editing. Before each of the agent's model
 * calls, old tool results are replaced with a short placeholder in what the
 * model receives, so the model's context fills more slowly (MW-280); the
 * history keeps every result.
 */
import type { InputHandler } from '../../core/index';
import { MiddlewareError } from '../../core/index';
import { describeValue } from '../../util/describe-value';
import { invalidOption } from '../../middleware/errors';
import { checkOptionsObject, optionalFunction } from '../../middleware/options';
import { refuseUnknownOptions } from './known-options';
import { estimateTokens } from '../loop/context-budget';
import type { ContentBlock, Message, ToolResultBlock } from '../types/message';
import type { InvokeModelContext, TokenCounter } from '../types/stages';
import { InvokeModelStage } from '../stages';

/** Options of {@link clearToolResults}. */
export interface ClearToolResultsOptions {
  /** The most recent tool results (of any tool) left as they are. Default 3. */
  readonly keep?: number;
  /** Clear only when the messages count more tokens than this; absent: before every call. */
  readonly triggerTokens?: number;
  /** The text a cleared result holds instead of its content. Default: `[Tool result cleared to save context. Call the tool again if you need it.]`. */
  readonly placeholder?: string;
  /** Tools whose results are never cleared. */
  readonly excludeTools?: readonly string[];
  /** How the messages are counted against `triggerTokens`. Default: `estimateTokens`. */
  readonly countTokens?: TokenCounter;
}

/** What a cleared tool result says unless `placeholder` says otherwise: what happened, and what the model can do. */
const DEFAULT_CLEARED_PLACEHOLDER = '[Tool result cleared to save context. Call the tool again if you need it.]';

const KNOWN_OPTIONS = ['keep', 'triggerTokens', 'placeholder', 'excludeTools', 'countTokens'];
const SHAPE = '{ keep?, triggerTokens?, placeholder?, excludeTools?, countTokens? }';

/**
 * An InvokeModelStage Input handler named `clearToolResults` (LangChain's
 * context editing with `clear_tool_uses`). Before each of the agent's own
 * model calls (a context without `caller`) whose messages count more than
 * `triggerTokens` (always, without it), every tool result but the last
 * `keep` is replaced, in the messages the model receives, by one text block
 * holding `placeholder`; results of `excludeTools` stay. The tool use, the
 * result's id, name and status stay, so the model knows what it called and
 * can call it again. The history is not changed.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`phase: 'register'`, `handler: 'clearToolResults'`) at once for bad
 *   or unknown options; at the call (`stage: 'invokeModel'`, `phase: 'input'`) when `countTokens` returns anything
 *   but a number >= 0.
 * @example
 * ```ts
 * registry.add(InvokeModelStage.Input, clearToolResults({ keep: 3, triggerTokens: 30_000, excludeTools: ['read_plan'] }));
 * ```
 */
export function clearToolResults(options: ClearToolResultsOptions = {}): InputHandler<InvokeModelContext> {
  checkOptionsObject('clearToolResults', options, SHAPE);
  refuseUnknownOptions('clearToolResults', options, KNOWN_OPTIONS, SHAPE);
  const { keep = 3, triggerTokens, placeholder = DEFAULT_CLEARED_PLACEHOLDER, excludeTools = [] } = options;
  if (typeof keep !== 'number' || !Number.isInteger(keep) || keep < 0)
    throw invalidOption('clearToolResults', 'options.keep must be an integer >= 0', keep);
  if (triggerTokens !== undefined && (typeof triggerTokens !== 'number' || !(triggerTokens >= 0)))
    throw invalidOption(
      'clearToolResults',
      'options.triggerTokens must be a number >= 0, or absent to clear before every call',
      triggerTokens,
    );
  if (typeof placeholder !== 'string' || placeholder.length === 0)
    throw invalidOption('clearToolResults', 'options.placeholder must be a non-empty string', placeholder);
  if (!Array.isArray(excludeTools) || !excludeTools.every((name) => typeof name === 'string'))
    throw invalidOption('clearToolResults', 'options.excludeTools must be an array of tool names', excludeTools);
  const countTokens = optionalFunction('clearToolResults', 'countTokens', options.countTokens) ?? estimateTokens;
  const excluded = new Set(excludeTools);
  const cleared: ToolResultBlock['content'] = Object.freeze([Object.freeze({ type: 'text', text: placeholder } as const)]);

  const handler: InputHandler<InvokeModelContext> = function (context) {
    if (context.caller !== undefined) return context;
    if (triggerTokens !== undefined) {
      const tokens: unknown = countTokens(context.messages);
      if (typeof tokens !== 'number' || !(tokens >= 0))
        throw new MiddlewareError({
          code: 'ERR_INVALID_OPTIONS',
          stage: InvokeModelStage.name,
          phase: 'input',
          handler: 'clearToolResults',
          message: `clearToolResults(): options.countTokens returned ${describeValue(tokens)}; it must return a number >= 0.`,
        });
      if (tokens <= triggerTokens) return context;
    }
    const messages = clearOlder(context.messages, keep, (block) => !excluded.has(block.name) && !isCleared(block, placeholder), cleared);
    return messages === context.messages ? context : { ...context, messages };
  };
  // Named explicitly: a bundler renames a function whose name the module's scope already takes.
  return Object.defineProperty(handler, 'name', { value: 'clearToolResults' });
}

/**
 * The messages with every tool result before the last `keep` that `clears`
 * accepts holding `content` instead; the same array when none does, and
 * the same message objects where nothing changed.
 */
function clearOlder(
  messages: readonly Message[],
  keep: number,
  clears: (block: ToolResultBlock) => boolean,
  content: ToolResultBlock['content'],
): readonly Message[] {
  let results = 0;
  for (const message of messages) for (const block of message.content) if (block.type === 'toolResult') results++;
  let older = results - keep;
  if (older <= 0) return messages;
  let edited: Message[] | undefined;
  for (let index = 0; index < messages.length && older > 0; index++) {
    const message = messages[index] as Message;
    let blocks: ContentBlock[] | undefined;
    for (let position = 0; position < message.content.length && older > 0; position++) {
      const block = message.content[position] as ContentBlock;
      if (block.type !== 'toolResult') continue;
      older--;
      if (!clears(block)) continue;
      blocks ??= [...message.content];
      blocks[position] = Object.freeze({ ...block, content });
    }
    if (blocks === undefined) continue;
    edited ??= [...messages];
    edited[index] = Object.freeze({ ...message, content: Object.freeze(blocks) });
  }
  return edited === undefined ? messages : Object.freeze(edited);
}

/** True for a result already holding just the placeholder, which clearing again would only copy. */
function isCleared(block: ToolResultBlock, placeholder: string): boolean {
  const [first] = block.content;
  return block.content.length === 1 && first?.type === 'text' && first.text === placeholder;
}
