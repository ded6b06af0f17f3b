/**
 * The response side of the AI SDK adapter: the stream parts of
 * `LanguageModelV3.doStream` and `LanguageModelV4.doStream` as the agent
 * kit's model stream events (MW-186, MW-300).
 */
import type { ModelStreamEvent, StopReason, Usage } from '../agent/types/model';
import { isObject } from '../util/is-object';

/** Token counts as the AI SDK reports them: `{ total }` objects (v3), or plain numbers. */
type TokenCount = number | { readonly total?: number | undefined } | undefined;

/** The stream parts the adapter reads; every other part is dropped. */
type StreamPart =
  | { readonly type: 'text-delta' | 'reasoning-delta'; readonly id: string; readonly delta: string }
  | {
      readonly type: 'tool-input-start';
      readonly id: string;
      readonly toolName: string;
      readonly providerExecuted?: boolean;
      readonly inputEncoding?: string;
    }
  | { readonly type: 'tool-input-delta'; readonly id: string; readonly delta: string }
  | {
      readonly type: 'tool-call';
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: string;
      readonly providerExecuted?: boolean;
    }
  | {
      readonly type: 'finish';
      readonly usage?: { readonly inputTokens?: TokenCount; readonly outputTokens?: TokenCount };
      readonly finishReason?: string | { readonly unified?: string; readonly raw?: string | undefined };
    }
  | { readonly type: 'error'; readonly error: unknown };

/** A tool use of the response, as its input streams. */
interface StreamingToolUse {
  /** Its position among the response's tool uses, from 0. */
  readonly index: number;
  /** Some of its input was passed on as JSON deltas: its tool call's input is not passed on again. */
  streamed: boolean;
  /** Its deltas are raw text (`inputEncoding: 'text'`), not JSON: only the tool call's input is passed on. */
  readonly raw: boolean;
  /** Its tool call arrived. */
  called: boolean;
}

/** A token count as a number (0 when the provider reported none). */
function tokens(count: TokenCount): number {
  const value: unknown = isObject(count) ? count.total : count;
  return Number.isFinite(value) ? (value as number) : 0;
}

/**
 * A finish reason's unified reason, as it came (it is only compared with strings), and its raw reason when that is a
 * string; a string is the unified reason alone.
 */
function finishReason(reason: unknown): { readonly unified?: unknown; readonly raw?: string } {
  if (typeof reason === 'string') return { unified: reason };
  if (!isObject(reason)) return {};
  const { unified, raw } = reason as { unified?: unknown; raw?: unknown };
  return typeof raw === 'string' ? { unified, raw } : { unified };
}

/** Where {@link ResponseParts.read} puts the events of a part: an array, or a sink of the response stream's own. */
export interface EventSink {
  push(event: ModelStreamEvent): unknown;
}

/**
 * Turns one response's stream parts into model stream events: text and
 * reasoning deltas, tool uses with their id and index on every delta (so
 * parallel calls whose input streams interleave are assembled per call),
 * usage and the stop reason. Tool calls the provider executes itself,
 * parts the kit has no event for (sources, files, metadata, raw chunks) and
 * parts whose fields lack the specification's types are dropped.
 */
export class ResponseParts {
  private readonly toolUses = new Map<string, StreamingToolUse>();
  /** Calls the provider executed itself: their parts are dropped. */
  private readonly providerExecuted = new Set<string>();
  private finished = false;

  /**
   * Adds to `out` the events one part becomes (none for most parts, and none after the
   * finish part: the response is complete, and no event may follow its `messageStop`).
   * A part that fails adds none.
   *
   * @throws The error of an `error` part, as it is: the provider failed mid-response.
   * @throws Error for a finish with reason `'error'` that no error part explained.
   */
  read(value: unknown, out: EventSink): void {
    if (this.finished || typeof value !== 'object' || value === null) return;
    const part = value as StreamPart;
    // A provider's part is outside data: one whose fields the adapter reads lack the specification's types is
    // dropped like an unknown part (checked case by case: a lookup of the fields per part cost more than the mapping).
    switch (part.type) {
      case 'text-delta':
        if (typeof part.delta === 'string' && part.delta !== '') out.push({ type: 'textDelta', text: part.delta });
        return;
      case 'reasoning-delta':
        if (typeof part.delta === 'string' && part.delta !== '') out.push({ type: 'reasoningDelta', text: part.delta });
        return;
      case 'tool-input-start':
        if (typeof part.id !== 'string' || typeof part.toolName !== 'string') return;
        if (part.providerExecuted === true) this.providerExecuted.add(part.id);
        else if (!this.toolUses.has(part.id)) out.push(this.start(part.id, part.toolName, part.inputEncoding === 'text'));
        return;
      case 'tool-input-delta': {
        if (typeof part.id !== 'string' || typeof part.delta !== 'string') return;
        const toolUse = this.toolUses.get(part.id);
        if (toolUse === undefined || toolUse.raw || toolUse.called || part.delta === '') return;
        toolUse.streamed = true;
        out.push({ type: 'toolUseDelta', toolUseId: part.id, index: toolUse.index, input: part.delta });
        return;
      }
      case 'tool-call':
        if (typeof part.toolCallId === 'string' && typeof part.toolName === 'string' && typeof part.input === 'string')
          this.call(part, out);
        return;
      case 'finish':
        this.finish(part, out);
        return;
      case 'error':
        throw part.error;
    }
  }

  /** The start of a client-executed tool use. */
  private start(toolUseId: string, name: string, raw: boolean): ModelStreamEvent {
    this.toolUses.set(toolUseId, { index: this.toolUses.size, streamed: false, raw, called: false });
    return { type: 'toolUseStart', toolUseId, name };
  }

  /**
   * A tool call: its whole input, passed on as one delta unless JSON deltas
   * of it already were (a provider that streams no input deltas, or raw text ones).
   */
  private call(part: Extract<StreamPart, { type: 'tool-call' }>, out: EventSink): void {
    if (part.providerExecuted === true || this.providerExecuted.has(part.toolCallId)) return;
    if (!this.toolUses.has(part.toolCallId)) out.push(this.start(part.toolCallId, part.toolName, false));
    const toolUse = this.toolUses.get(part.toolCallId) as StreamingToolUse;
    if (toolUse.called) return;
    toolUse.called = true;
    if (!toolUse.streamed && part.input !== '') {
      out.push({ type: 'toolUseDelta', toolUseId: part.toolCallId, index: toolUse.index, input: part.input });
    }
  }

  /** Usage, then the stop reason (none for an interrupted response, MW-300). */
  private finish(part: Extract<StreamPart, { type: 'finish' }>, out: EventSink): void {
    this.finished = true;
    const { unified, raw } = finishReason(part.finishReason);
    if (unified === 'error') {
      throw new Error(
        `The AI SDK model finished its response with reason "error"${raw === undefined ? '' : ` (the provider's "${raw}")`} and no error part: the response is incomplete.`,
        { cause: part.finishReason },
      );
    }
    const { usage: counts } = part;
    const inputTokens = tokens(isObject(counts) ? counts.inputTokens : undefined);
    const outputTokens = tokens(isObject(counts) ? counts.outputTokens : undefined);
    const usage: Usage = { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
    out.push({ type: 'usage', usage });
    // The provider's stream ended without a completion signal: the answer is as incomplete as a stream without finish part.
    if (unified === 'interrupted') return;
    out.push({ type: 'messageStop', stopReason: this.stopReason(unified, raw) });
  }

  /**
   * The kit's stop reason for a finish reason. A response with tool calls
   * that finished with `'stop'` or `'other'` (some OpenAI-compatible servers
   * do) is `'toolUse'`, so the tools run, as the AI SDK's own loop runs them.
   */
  private stopReason(unified: unknown, raw: string | undefined): StopReason {
    switch (unified) {
      case 'tool-calls':
        return 'toolUse';
      case 'length':
        return 'maxTokens';
      case 'content-filter':
        return 'contentFiltered';
      default: {
        if (this.toolUses.size > 0) return 'toolUse';
        return unified === 'stop' && raw === 'stop_sequence' ? 'stopSequence' : 'endTurn';
      }
    }
  }
}
