/**
 * The request side of the AI SDK adapter: a `ModelRequest` of the agent kit
 * as the call options of `LanguageModelV3.doStream` (MW-187).
 */
import { isSystemTextBlock, type SystemContentBlock } from '../core/index';
import { sharedStart } from '../core/internal';
import { isObject } from '../util/is-object';
import { deepFreeze } from '../util/deep-freeze';
import { ownEntry, setOwnEntry } from '../util/own-entry';
import type { ContentBlock, Message, ToolResultBlock } from '../agent/types/message';
import type { ModelRequest } from '../agent/types/model';
import type { ToolChoice } from '../agent/types/tool';
import { resultPartTexts } from '../agent/tools/tool-result-text';
import type {
  AiSdkCallOptions,
  AiSdkCallSettings,
  AiSdkJsonValue,
  AiSdkMessage,
  AiSdkProviderOptions,
  AiSdkReasoningPart,
  AiSdkTextPart,
  AiSdkToolCallPart,
  AiSdkToolChoice,
  AiSdkToolResultOutput,
  AiSdkToolResultPart,
} from './ai-sdk-types';
import { namelessToolResult } from './errors';

/** The provider options a cache point puts on the prompt part or system message before it. */
export type CachePointOptions = (cacheType: string) => AiSdkProviderOptions | undefined;

/**
 * The default mapping of a cache point: Anthropic's `cacheControl` (ephemeral,
 * its only kind) and Bedrock's `cachePoint` of the point's type. Providers read
 * only their own key, so the others ignore both.
 */
export function providerCachePoint(cacheType: string): AiSdkProviderOptions {
  return { anthropic: { cacheControl: { type: 'ephemeral' } }, bedrock: { cachePoint: { type: cacheType } } };
}

/** A part or message that can carry provider options. */
interface Annotated {
  providerOptions?: AiSdkProviderOptions;
}

/** Merges `added` into the provider options of `target`, provider by provider. */
function annotate(target: Annotated | undefined, added: AiSdkProviderOptions | undefined): void {
  if (target === undefined || added === undefined) return;
  const merged: AiSdkProviderOptions = { ...target.providerOptions };
  for (const [provider, options] of Object.entries(added))
    setOwnEntry(merged, provider, { ...(ownEntry(merged, provider) as AiSdkProviderOptions[string] | undefined), ...options });
  target.providerOptions = merged;
}

/** The type of a system cache-point block, or undefined for any other block. */
function systemCacheType(block: SystemContentBlock): string | undefined {
  const cachePoint = (block as { cachePoint?: { type?: unknown } }).cachePoint;
  return isObject(cachePoint) && typeof cachePoint.type === 'string' ? cachePoint.type : undefined;
}

/** One system message per text block; a cache point marks the message before it. Other blocks are dropped. */
function systemMessages(blocks: readonly SystemContentBlock[], cachePoint: CachePointOptions): AiSdkMessage[] {
  const messages: (AiSdkMessage & { role: 'system' })[] = [];
  for (const block of blocks) {
    if (isSystemTextBlock(block)) messages.push({ role: 'system', content: block.text });
    else {
      const cacheType = systemCacheType(block);
      if (cacheType !== undefined) annotate(messages.at(-1), cachePoint(cacheType));
    }
  }
  return messages;
}

/** How a tool result's content reaches the model: one text or JSON value as it is, several as content parts. */
function outputOf(block: ToolResultBlock): AiSdkToolResultOutput {
  const failed = block.status === 'error';
  const [only, ...others] = block.content;
  if (only !== undefined && others.length === 0) {
    if (only.type === 'text') return { type: failed ? 'error-text' : 'text', value: only.text };
    return { type: failed ? 'error-json' : 'json', value: only.json as AiSdkJsonValue };
  }
  const texts = resultPartTexts(block.content);
  if (failed) return { type: 'error-text', value: texts.join('\n') };
  if (texts.length === 0) return { type: 'text', value: '' };
  return { type: 'content', value: texts.map((text) => ({ type: 'text', text })) };
}

/**
 * The name a tool result is sent with: its own, else that of the last tool use
 * with its id in an assistant message before it (a result from before results
 * carried names).
 *
 * @param before - The messages before the result's own.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when neither exists: the provider could not match the result.
 */
function toolNameOf(block: ToolResultBlock, before: readonly Message[], count: number): string {
  if (typeof block.name === 'string' && block.name.length > 0) return block.name;
  // Searched only for a result without a name, which the kit's own results never are.
  for (let index = count - 1; index >= 0; index--) {
    const message = before[index] as Message;
    if (message.role !== 'assistant') continue;
    for (let blockIndex = message.content.length - 1; blockIndex >= 0; blockIndex--) {
      const candidate = message.content[blockIndex] as ContentBlock;
      if (candidate.type === 'toolUse' && candidate.toolUseId === block.toolUseId) return candidate.name;
    }
  }
  throw namelessToolResult(block.toolUseId);
}

/** The parts of an assistant message; a cache point marks the part before it, tool results are dropped. */
function assistantParts(
  content: readonly ContentBlock[],
  cachePoint: CachePointOptions,
): (AiSdkTextPart | AiSdkReasoningPart | AiSdkToolCallPart)[] {
  const parts: (AiSdkTextPart | AiSdkReasoningPart | AiSdkToolCallPart)[] = [];
  for (const block of content) {
    if (block.type === 'text') parts.push({ type: 'text', text: block.text });
    else if (block.type === 'reasoning') parts.push({ type: 'reasoning', text: block.text });
    else if (block.type === 'toolUse')
      parts.push({ type: 'tool-call', toolCallId: block.toolUseId, toolName: block.name, input: block.input });
    else if (block.type === 'cachePoint') annotate(parts.at(-1), cachePoint(block.cacheType));
  }
  return parts;
}

/**
 * The messages a user message becomes: its text as user messages and its
 * tool results as tool messages, in order (a run of blocks of one kind is one
 * message); a cache point marks the part before it.
 */
function userMessages(
  content: readonly ContentBlock[],
  before: readonly Message[],
  count: number,
  cachePoint: CachePointOptions,
): AiSdkMessage[] {
  const messages: AiSdkMessage[] = [];
  let text: AiSdkTextPart[] | undefined;
  let results: AiSdkToolResultPart[] | undefined;
  let last: Annotated | undefined;
  for (const block of content) {
    if (block.type === 'text') {
      if (text === undefined) {
        text = [];
        results = undefined;
        messages.push({ role: 'user', content: text });
      }
      const part: AiSdkTextPart = { type: 'text', text: block.text };
      text.push(part);
      last = part;
    } else if (block.type === 'toolResult') {
      if (results === undefined) {
        results = [];
        text = undefined;
        messages.push({ role: 'tool', content: results });
      }
      const part: AiSdkToolResultPart = {
        type: 'tool-result',
        toolCallId: block.toolUseId,
        toolName: toolNameOf(block, before, count),
        output: outputOf(block),
      };
      results.push(part);
      last = part;
    } else if (block.type === 'cachePoint') annotate(last, cachePoint(block.cacheType));
  }
  return messages;
}

/**
 * What the last call of each conversation sent, so that the next call of it
 * converts only the messages added since (MW-145): keyed weakly by the
 * conversation's first message, so a conversation no one holds is forgotten.
 * The prompt messages of the part already sent are handed to the next call as
 * they are, not made again, and frozen when made: a provider reads the
 * prompt it is given, it does not change it.
 */
export class SentPrompts {
  private readonly byFirstMessage = new WeakMap<Message, SentConversation>();

  /** The prompt messages for `messages`, reusing those of the same conversation's last call for the messages it shares. */
  conversation(messages: readonly Message[], cachePoint: CachePointOptions): readonly AiSdkMessage[] {
    const first = messages[0];
    if (first === undefined) return [];
    const last = this.byFirstMessage.get(first);
    // A history's array and the one the last call sent usually extend a common array of the same history: the
    // length they share is then found from the arrays' lineage, without reading them (MW-145).
    const shared = last === undefined ? undefined : sharedStart(last.array, messages);
    // Otherwise (a first call too, which converts them all) read through a plain copy: V8 indexes a frozen array (a
    // history's) six to ten times slower than a plain one, and copies it by spreading at a fraction of that, so one
    // copy and a plain comparison cost less than the comparison alone.
    const read = shared === undefined ? [...messages] : messages;
    const kept = last === undefined ? 0 : shared === undefined ? sharedPrefix(last, read) : Math.min(shared, last.frozen);
    // The arrays are the adapter's own (a call is sent a copy), so the last call's are cut back and extended in place.
    const prompt = last === undefined ? [] : last.prompt;
    const starts = last === undefined ? [] : last.starts;
    prompt.length = starts[kept] ?? 0;
    starts.length = kept;
    const added = prompt.length;
    try {
      convertInto(prompt, starts, read, kept, cachePoint);
    } catch (error) {
      // The arrays were cut back and partly extended in place: the next call of this conversation converts it anew.
      this.byFirstMessage.delete(first);
      throw error;
    }
    // Later calls hand these very objects on again: frozen, so a provider or an AI SDK middleware that changes a
    // prompt in place fails loudly instead of changing what every later call sends.
    for (let index = added; index < prompt.length; index++) deepFreeze(prompt[index]);
    // The messages kept were frozen when first sent, and a frozen object stays frozen: only the new ones are looked at.
    let frozen = kept;
    while (frozen < read.length && Object.isFrozen(read[frozen])) frozen++;
    this.byFirstMessage.set(first, { array: messages, messages: read, prompt, starts, frozen });
    return prompt;
  }
}

/** One call's conversation: its messages, its prompt messages, and where each message's prompt messages begin. */
interface SentConversation {
  /** The array of messages sent, as the call was given it. */
  readonly array: readonly Message[];
  /** The messages sent, as a plain copy where the call compared them (see {@link SentPrompts.conversation}). */
  readonly messages: readonly Message[];
  readonly prompt: AiSdkMessage[];
  /** `starts[i]`: the index in `prompt` of message i's first prompt message; `starts[messages.length]` is `prompt.length`. */
  readonly starts: number[];
  /** How many messages at the start were frozen when sent. */
  readonly frozen: number;
}

/**
 * How many messages at the start of `next` are the very messages at the start of what was sent, frozen. Only
 * frozen ones, which the kit takes to be frozen all the way down: a message changed since would send its old form.
 */
function sharedPrefix(sent: SentConversation, next: readonly Message[]): number {
  const length = Math.min(sent.frozen, next.length);
  const { messages } = sent;
  let index = 0;
  while (index < length && messages[index] === next[index]) index++;
  return index;
}

/** Converts `messages` from index `from` on, appending to `prompt` and recording where each message begins in `starts`. */
function convertInto(
  prompt: AiSdkMessage[],
  starts: number[],
  messages: readonly Message[],
  from: number,
  cachePoint: CachePointOptions,
): void {
  for (let index = from; index < messages.length; index++) {
    const message = messages[index] as Message;
    starts.push(prompt.length);
    if (message.role === 'assistant') {
      const content = assistantParts(message.content, cachePoint);
      if (content.length > 0) prompt.push({ role: 'assistant', content });
    } else {
      prompt.push(...userMessages(message.content, messages, index, cachePoint));
    }
  }
  starts.push(prompt.length);
}

/** The conversation as AI SDK prompt messages; messages left with no part are dropped. */
function conversation(messages: readonly Message[], cachePoint: CachePointOptions): AiSdkMessage[] {
  const prompt: AiSdkMessage[] = [];
  convertInto(prompt, [], messages, 0, cachePoint);
  return prompt;
}

/** The AI SDK's tool choice for the kit's. */
function toolChoiceOf(choice: ToolChoice): AiSdkToolChoice {
  if (choice.type === 'any') return { type: 'required' };
  if (choice.type === 'tool') return { type: 'tool', toolName: choice.name };
  return { type: 'auto' };
}

/**
 * The call options for one `doStream` call: the settings, then the system
 * prompt and the conversation, the tools (when there are any), the tool
 * choice (when constrained) and the run's signal.
 *
 * @param sent - Where the adapter keeps what each conversation's last call sent, if it does.
 */
export function toCallOptions(
  request: ModelRequest,
  signal: AbortSignal,
  settings: AiSdkCallSettings | undefined,
  cachePoint: CachePointOptions,
  sent?: SentPrompts,
): AiSdkCallOptions {
  const messages = sent === undefined ? conversation(request.messages, cachePoint) : sent.conversation(request.messages, cachePoint);
  const options: AiSdkCallOptions = {
    ...settings,
    // concat, not [...system, ...messages]: V8 copies a long array spread after another element item by item.
    prompt: systemMessages(request.systemBlocks, cachePoint).concat(messages),
    abortSignal: signal,
  };
  if (request.toolSpecs.length > 0) {
    options.tools = request.toolSpecs.map((spec) => ({
      type: 'function',
      name: spec.name,
      description: spec.description,
      inputSchema: spec.inputSchema,
    }));
  }
  if (request.toolChoice !== undefined) options.toolChoice = toolChoiceOf(request.toolChoice);
  return options;
}
