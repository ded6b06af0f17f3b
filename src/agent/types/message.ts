/**
 * Provider-neutral conversation types: content blocks and messages. Pure
 * types; no runtime code lives here.
 *
 * @packageDocumentation
 */

/** Who wrote a message. */
export type Role = 'user' | 'assistant';

/** Plain text. */
export interface TextBlock {
  /** Block kind. */
  readonly type: 'text';
  /** The text. */
  readonly text: string;
}

/** The model asks for a tool call. */
export interface ToolUseBlock {
  /** Block kind. */
  readonly type: 'toolUse';
  /** Identifies the call; the matching tool result carries the same id. */
  readonly toolUseId: string;
  /** Name of the tool to call. */
  readonly name: string;
  /** The tool's input (parsed JSON). */
  readonly input: unknown;
}

/** Structured content of a tool result. */
export interface JsonBlock {
  /** Block kind. */
  readonly type: 'json';
  /** Any JSON value. */
  readonly json: unknown;
}

/** What a tool call produced, sent back to the model in a user message. */
export interface ToolResultBlock {
  /** Block kind. */
  readonly type: 'toolResult';
  /** The id of the tool use this answers. */
  readonly toolUseId: string;
  /** The name of the tool called (the tool use's `name`), which provider APIs send beside the id. */
  readonly name: string;
  /** `'error'` when the tool failed, was unknown or was blocked. */
  readonly status: 'success' | 'error';
  /** The result content. */
  readonly content: readonly (TextBlock | JsonBlock)[];
  /**
   * Data for the application beside the content: kept in the history and snapshots as untrusted
   * data, never sent to the model (MW-344).
   */
  readonly details?: unknown;
}

/** The model's visible reasoning. */
export interface ReasoningBlock {
  /** Block kind. */
  readonly type: 'reasoning';
  /** The reasoning text. */
  readonly text: string;
  /** Provider signature that lets the reasoning be sent back, if any. */
  readonly signature?: string;
}

/** A cache point inside a message: providers that cache prompts cache everything before it. */
export interface CachePointBlock {
  /** Block kind. */
  readonly type: 'cachePoint';
  /** Provider-defined cache type (`'default'`, say). */
  readonly cacheType: string;
}

/** One block of message content. */
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | ReasoningBlock | CachePointBlock;

/** One message of a conversation. */
export interface Message {
  /** Who wrote it. */
  readonly role: Role;
  /** Its content blocks, in order. */
  readonly content: readonly ContentBlock[];
}
