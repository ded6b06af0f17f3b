/**
 * The events of an InvokeModelStage invoke as the stream parts of the AI
 * SDK (MW-303): what `streamText` reads when the registry runs inside its
 * loop. Blocks get ids of their own; tool calls and the finish come from
 * the invoke's result, so Output handlers decide them.
 */
import type { InvokeModelEvent, ModelResultEvent } from '../agent/types/stages';
import type { StopReason, Usage } from '../agent/types/model';

/** A stream part the middleware yields (a `LanguageModelV3StreamPart` and a `LanguageModelV4StreamPart` alike). */
export type AiSdkStreamPart =
  | { type: 'stream-start'; warnings: [] }
  | { type: 'text-start' | 'text-end' | 'reasoning-start' | 'reasoning-end'; id: string }
  | { type: 'text-delta' | 'reasoning-delta'; id: string; delta: string }
  | { type: 'tool-input-start'; id: string; toolName: string }
  | { type: 'tool-input-delta'; id: string; delta: string }
  | { type: 'tool-input-end'; id: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: string }
  | { type: 'raw'; rawValue: unknown }
  | { type: 'error'; error: unknown }
  | { type: 'finish'; usage: AiSdkUsage; finishReason: AiSdkFinishReason };

/** Usage as the AI SDK's specifications report it. */
export interface AiSdkUsage {
  /** Input tokens: the total, the rest unknown. */
  inputTokens: { total: number; noCache: undefined; cacheRead: undefined; cacheWrite: undefined };
  /** Output tokens: the total, the rest unknown. */
  outputTokens: { total: number; text: undefined; reasoning: undefined };
}

/** A finish reason of the AI SDK: the unified reason and the kit's stop reason as the raw one. */
export interface AiSdkFinishReason {
  /** The unified reason. */
  unified: 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'other';
  /** The kit's stop reason. */
  raw: string;
}

/** The AI SDK's usage of the kit's. */
export function aiSdkUsage(usage: Usage): AiSdkUsage {
  return {
    inputTokens: { total: usage.inputTokens, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: usage.outputTokens, text: undefined, reasoning: undefined },
  };
}

/** The AI SDK's finish reason of the kit's stop reason. */
export function aiSdkFinishReason(stopReason: StopReason): AiSdkFinishReason {
  const unified = Object.hasOwn(UNIFIED_REASONS, stopReason) ? UNIFIED_REASONS[stopReason] : undefined;
  return { unified: unified ?? 'other', raw: stopReason };
}

/** The unified reasons of the kit's stop reasons; any other is `'other'`. */
const UNIFIED_REASONS: Readonly<Record<string, AiSdkFinishReason['unified']>> = {
  endTurn: 'stop',
  stopSequence: 'stop',
  toolUse: 'tool-calls',
  maxTokens: 'length',
  contentFiltered: 'content-filter',
};

/** The tool calls of a result, with their input as JSON text. */
export function toolCallsOf(result: ModelResultEvent): Extract<AiSdkStreamPart, { type: 'tool-call' }>[] {
  return result.message.content.flatMap((block) =>
    block.type === 'toolUse'
      ? [{ type: 'tool-call' as const, toolCallId: block.toolUseId, toolName: block.name, input: JSON.stringify(block.input ?? {}) }]
      : [],
  );
}

/** Turns one invoke's events into stream parts, keeping which text or reasoning block is open. */
export class StreamPartWriter {
  private open: { readonly kind: 'text' | 'reasoning'; readonly id: string } | undefined;
  private blocks = 0;
  private readonly toolInputs: string[] = [];

  /** The parts of one event. */
  parts(event: InvokeModelEvent): AiSdkStreamPart[] {
    switch (event.type) {
      case 'textDelta':
        return [...this.openBlock('text'), { type: 'text-delta', id: (this.open as { id: string }).id, delta: event.text }];
      case 'reasoningDelta':
        return [...this.openBlock('reasoning'), { type: 'reasoning-delta', id: (this.open as { id: string }).id, delta: event.text }];
      case 'toolUseStart':
        this.toolInputs.push(event.toolUseId);
        return [...this.close(), { type: 'tool-input-start', id: event.toolUseId, toolName: event.name }];
      case 'toolUseDelta':
        // A delta without an id belongs to the tool use started last (MW-100).
        return [{ type: 'tool-input-delta', id: event.toolUseId ?? this.toolInputs.at(-1) ?? '', delta: event.input }];
      case 'attempt-boundary':
        // The AI SDK has no part that withdraws what a failed attempt streamed: a consumer that asks for raw chunks sees the boundary.
        return [...this.close(), { type: 'raw', rawValue: { ...event } }];
      case 'modelResult':
        return [
          ...this.close(),
          ...this.toolInputs.splice(0).map((id): AiSdkStreamPart => ({ type: 'tool-input-end', id })),
          ...toolCallsOf(event),
          { type: 'finish', usage: aiSdkUsage(event.usage), finishReason: aiSdkFinishReason(event.stopReason) },
        ];
      default:
        return [];
    }
  }

  /** Opens a block of `kind` unless one is open, closing one of the other kind. */
  private openBlock(kind: 'text' | 'reasoning'): AiSdkStreamPart[] {
    if (this.open?.kind === kind) return [];
    const closed = this.close();
    this.open = { kind, id: `${kind}-${this.blocks++}` };
    return [...closed, { type: `${kind}-start`, id: this.open.id }];
  }

  /** Closes the open block, if any. */
  private close(): AiSdkStreamPart[] {
    if (this.open === undefined) return [];
    const { kind, id } = this.open;
    this.open = undefined;
    return [{ type: `${kind}-end`, id }];
  }
}
