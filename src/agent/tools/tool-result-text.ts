/**
 * The text of a tool result's content, as a model or a transcript reads it
 * where only text fits: each text part as it is, each JSON part as its JSON text.
 */
import type { ToolResultBlock } from '../types/message';
import { jsonText } from '../values/json-value';

/** The text of each part of `content`, in order: a JSON part as `JSON.stringify` writes it (`null` where it writes nothing). */
export function resultPartTexts(content: ToolResultBlock['content']): string[] {
  return content.map((part) => (part.type === 'text' ? part.text : jsonText(part.json)));
}
