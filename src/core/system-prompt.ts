/** A text block of a system prompt. */
export interface SystemTextBlock {
  /** The text. */
  readonly text: string;
}

/** A cache point: providers that support prompt caching cache everything before it. */
export interface SystemCachePointBlock {
  /** Cache settings; `type` is provider-defined (`'default'`, say). */
  readonly cachePoint: { readonly type: string };
}

/**
 * One block of a system prompt. Open to other block kinds: a block that is
 * neither text nor a cache point is carried along untouched.
 */
export type SystemContentBlock = SystemTextBlock | SystemCachePointBlock | Readonly<Record<string, unknown>>;

/** A system prompt: a plain string, or content blocks (which keep cache points). */
export type SystemPrompt = string | readonly SystemContentBlock[];

/** The two forms providers take a system prompt in. */
export interface SplitSystemPrompt {
  /** The text blocks joined in order with a single newline. */
  readonly text: string;
  /** Every block, cache points included, in order. */
  readonly blocks: readonly SystemContentBlock[];
}

/**
 * Normalises a system prompt to content blocks: a string becomes one text
 * block; blocks are returned as they are (the same array, cache points kept).
 */
export function toSystemBlocks(prompt: SystemPrompt): readonly SystemContentBlock[] {
  return typeof prompt === 'string' ? Object.freeze([Object.freeze({ text: prompt })]) : prompt;
}

/** True for a text block. */
export function isSystemTextBlock(block: SystemContentBlock): block is SystemTextBlock {
  return typeof (block as { text?: unknown }).text === 'string';
}

/**
 * Splits a prompt into the text-only form (for providers that take a string)
 * and the block form (for providers that take blocks and cache points).
 *
 * @example
 * ```ts
 * splitSystemPrompt([{ text: 'You are terse.' }, { cachePoint: { type: 'default' } }, { text: 'Today is Monday.' }])
 * // => { text: 'You are terse.\nToday is Monday.', blocks: [ ...all three blocks ] }
 * ```
 */
export function splitSystemPrompt(prompt: SystemPrompt): SplitSystemPrompt {
  const blocks = toSystemBlocks(prompt);
  const texts: string[] = [];
  for (const block of blocks) if (isSystemTextBlock(block)) texts.push(block.text);
  return Object.freeze({ text: texts.join('\n'), blocks });
}
