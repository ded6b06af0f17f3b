/**
 * `promptCaching()`: where the cache points of a model call go, for the
 * providers that cache prompts up to a marked point (Anthropic, Bedrock):
 * after the system prompt, and at the end of the conversation (MW-296).
 */
import type { InputHandler, SystemContentBlock } from '../../core/index';
import { isObject } from '../../util/is-object';
import { invalidOption } from '../../middleware/errors';
import { checkOptionsObject } from '../../middleware/options';
import { refuseUnknownOptions } from './known-options';
import type { CachePointBlock, Message } from '../types/message';
import type { InvokeModelContext } from '../types/stages';

/** Options of {@link promptCaching}. */
export interface PromptCachingOptions {
  /** A cache point after the system prompt (which providers put after the tools). Default `true`. */
  readonly system?: boolean;
  /** A cache point at the end of the last message, so the next call reads the conversation so far from the cache. Default `true`. */
  readonly messages?: boolean;
  /** The cache points' type (Bedrock's `cachePoint.type`; Anthropic's is always `ephemeral`). Default `'default'`. */
  readonly cacheType?: string;
}

const KNOWN_OPTIONS = ['system', 'messages', 'cacheType'];
const SHAPE = '{ system?, messages?, cacheType? }';

/**
 * An InvokeModelStage Input handler named `promptCaching`. In each of the
 * agent's own model calls (a context without `caller`) it adds a cache
 * point after the system prompt and one at the end of the last message,
 * unless one is already there; the AI SDK adapter (`fromAiSdk`) sends them
 * as Anthropic's `cacheControl` and Bedrock's `cachePoint`, and other
 * providers ignore them. Only the request changes: the history holds no
 * cache point of its own.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`phase: 'register'`, `handler: 'promptCaching'`) at once for bad or
 *   unknown options.
 * @example
 * ```ts
 * registry.add(InvokeModelStage.Input, promptCaching());
 * ```
 */
export function promptCaching(options: PromptCachingOptions = {}): InputHandler<InvokeModelContext> {
  checkOptionsObject('promptCaching', options, SHAPE);
  refuseUnknownOptions('promptCaching', options, KNOWN_OPTIONS, SHAPE);
  const { system = true, messages = true, cacheType = 'default' } = options;
  if (typeof system !== 'boolean') throw invalidOption('promptCaching', 'options.system must be a boolean', system);
  if (typeof messages !== 'boolean') throw invalidOption('promptCaching', 'options.messages must be a boolean', messages);
  if (typeof cacheType !== 'string' || cacheType.length === 0)
    throw invalidOption('promptCaching', 'options.cacheType must be a non-empty string', cacheType);
  const systemPoint: SystemContentBlock = Object.freeze({ cachePoint: Object.freeze({ type: cacheType }) });
  const messagePoint: CachePointBlock = Object.freeze<CachePointBlock>({ type: 'cachePoint', cacheType });

  const handler: InputHandler<InvokeModelContext> = function (context) {
    if (context.caller !== undefined) return context;
    const { systemPrompt } = context;
    const markSystem = system && systemPrompt.length > 0 && !isSystemCachePoint(systemPrompt[systemPrompt.length - 1]);
    const last = context.messages[context.messages.length - 1];
    const markLast =
      messages && last !== undefined && last.content.length > 0 && last.content[last.content.length - 1]?.type !== 'cachePoint';
    if (!markSystem && !markLast) return context;
    const next: { -readonly [K in keyof InvokeModelContext]: InvokeModelContext[K] } = { ...context };
    if (markSystem) next.systemPrompt = Object.freeze([...systemPrompt, systemPoint]);
    if (markLast) {
      const marked: Message = Object.freeze({ ...last, content: Object.freeze([...last.content, messagePoint]) });
      next.messages = Object.freeze([...context.messages.slice(0, -1), marked]);
    }
    return next;
  };
  // Named explicitly: a bundler renames a function whose name the module's scope already takes.
  return Object.defineProperty(handler, 'name', { value: 'promptCaching' });
}

/** True for a system block that is a cache point. */
function isSystemCachePoint(block: SystemContentBlock | undefined): boolean {
  return block !== undefined && isObject((block as { cachePoint?: unknown }).cachePoint);
}
