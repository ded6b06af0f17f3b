/**
 * The AI SDK's call options as the agent kit's request (MW-302): what the
 * registry's InvokeModelStage handlers see when they run inside the AI
 * SDK's own loop. The inverse of `prompt.ts` on what both can hold.
 */
import type { SystemContentBlock } from '../core/index';
import { isObject } from '../util/is-object';
import type { ContentBlock, Message, TextBlock, JsonBlock, ToolResultBlock } from '../agent/types/message';
import type { ToolChoice, ToolSpec } from '../agent/types/tool';

/** The parts of an InvokeModelStage context that come from a call's options. */
export interface RequestParts {
  /** The system messages' texts, as text blocks. */
  readonly systemPrompt: readonly SystemContentBlock[];
  /** The conversation: a tool message is a user message of tool results. */
  readonly messages: readonly Message[];
  /** The function tools. */
  readonly toolSpecs: readonly ToolSpec[];
  /** The tool choice, unless the model chooses freely or may call none. */
  readonly toolChoice: ToolChoice | undefined;
}

/** A value of the call options, read as a record (provider input: anything may be missing). */
type Loose = Readonly<Record<string, unknown>>;

/** The kit's blocks of a tool result's output. */
function resultBlocks(output: unknown): { status: 'success' | 'error'; content: (TextBlock | JsonBlock)[] } {
  if (!isObject(output)) return { status: 'success', content: [] };
  const { type, value, reason } = output as Loose;
  switch (type) {
    case 'text':
      return { status: 'success', content: [{ type: 'text', text: String(value) }] };
    case 'json':
      return { status: 'success', content: [{ type: 'json', json: value ?? null }] };
    case 'error-text':
      return { status: 'error', content: [{ type: 'text', text: String(value) }] };
    case 'error-json':
      return { status: 'error', content: [{ type: 'json', json: value ?? null }] };
    case 'execution-denied':
      return { status: 'error', content: [{ type: 'text', text: typeof reason === 'string' ? reason : 'The tool call was denied.' }] };
    case 'content':
      return {
        status: 'success',
        content: (Array.isArray(value) ? value : [])
          .filter((part): part is Loose => isObject(part) && (part as Loose).type === 'text' && typeof (part as Loose).text === 'string')
          .map((part) => ({ type: 'text', text: part.text as string })),
      };
    default:
      return { status: 'success', content: [] };
  }
}

/** The kit's block of an assistant part, or undefined for a part the kit has no block for. */
function assistantBlock(part: Loose): ContentBlock | undefined {
  if (part.type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text };
  if (part.type === 'reasoning' && typeof part.text === 'string') return { type: 'reasoning', text: part.text };
  if (part.type === 'tool-call' && typeof part.toolCallId === 'string' && typeof part.toolName === 'string')
    return { type: 'toolUse', toolUseId: part.toolCallId, name: part.toolName, input: part.input };
  return undefined;
}

/** The kit's tool result of a tool-result part, or undefined for another part. */
function toolResult(part: Loose): ToolResultBlock | undefined {
  if (part.type !== 'tool-result' || typeof part.toolCallId !== 'string' || typeof part.toolName !== 'string') return undefined;
  return { type: 'toolResult', toolUseId: part.toolCallId, name: part.toolName, ...resultBlocks(part.output) };
}

/** The parts of `content` that `block` makes blocks of, dropping the rest. */
function blocksOf<TBlock>(content: unknown, block: (part: Loose) => TBlock | undefined): TBlock[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((part: unknown) => {
    const made = isObject(part) ? block(part as Loose) : undefined;
    return made === undefined ? [] : [made];
  });
}

/**
 * The request parts of a call's options: system messages as text blocks of
 * the system prompt, user text, assistant text, reasoning and tool calls,
 * tool messages as user messages of tool results; function tools as tool
 * specs. Parts the kit has no block for (files, images, custom parts,
 * approval responses) and provider tools are left out: the handlers do not
 * see them, and the call sends them as they came unless a handler changed
 * the request (MW-302).
 */
export function fromCallOptions(options: Loose): RequestParts {
  const systemPrompt: SystemContentBlock[] = [];
  const messages: Message[] = [];
  for (const message of Array.isArray(options.prompt) ? (options.prompt as unknown[]) : []) {
    if (!isObject(message)) continue;
    const { role, content } = message as Loose;
    if (role === 'system' && typeof content === 'string') systemPrompt.push({ text: content });
    else if (role === 'user') {
      const blocks = blocksOf(content, (part) =>
        part.type === 'text' && typeof part.text === 'string' ? { type: 'text' as const, text: part.text } : undefined,
      );
      if (blocks.length > 0) messages.push({ role: 'user', content: blocks });
    } else if (role === 'assistant') {
      const blocks = blocksOf(content, assistantBlock);
      if (blocks.length > 0) messages.push({ role: 'assistant', content: blocks });
    } else if (role === 'tool') {
      const blocks = blocksOf(content, toolResult);
      if (blocks.length > 0) messages.push({ role: 'user', content: blocks });
    }
  }
  const toolSpecs = (Array.isArray(options.tools) ? (options.tools as unknown[]) : []).flatMap((tool): ToolSpec[] => {
    if (!isObject(tool)) return [];
    const { type, name, description, inputSchema } = tool as Loose;
    if (type !== 'function' || typeof name !== 'string') return [];
    return [
      {
        name,
        description: typeof description === 'string' ? description : '',
        inputSchema: (isObject(inputSchema) ? inputSchema : {}) as ToolSpec['inputSchema'],
      },
    ];
  });
  return { systemPrompt, messages, toolSpecs, toolChoice: toolChoiceOf(options.toolChoice) };
}

/** The kit's tool choice of the AI SDK's. `none` has no counterpart: the call options keep it (MW-302). */
function toolChoiceOf(choice: unknown): ToolChoice | undefined {
  if (!isObject(choice)) return undefined;
  const { type, toolName } = choice as Loose;
  if (type === 'required') return { type: 'any' };
  if (type === 'tool' && typeof toolName === 'string') return { type: 'tool', name: toolName };
  if (type === 'auto') return { type: 'auto' };
  return undefined;
}
