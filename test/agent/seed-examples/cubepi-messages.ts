/** The message builders and readers the CubePi ports share. */
import type { Message, ToolResultBlock } from '../../../src/agent/index';

/** A message of one text block. */
export const say = (role: 'user' | 'assistant', text: string): Message => ({ role, content: [{ type: 'text', text }] });
/** The text of a message, its other blocks named by type. */
export const textOf = (message: Message | undefined): string =>
  (message?.content ?? []).map((block) => (block.type === 'text' ? block.text : block.type)).join('');
/** The text of a tool result, its JSON parts serialised. */
export const resultText = (block: ToolResultBlock | undefined): string =>
  (block?.content ?? []).map((part) => (part.type === 'text' ? part.text : JSON.stringify(part.json))).join('');
