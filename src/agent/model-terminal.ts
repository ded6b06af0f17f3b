import { splitSystemPrompt } from '../system-prompt';
import type { TerminalRun } from '../types';
import { ZERO_USAGE } from './usage';
import type { ContentBlock } from './message-types';
import type { ModelRequest, StopReason, Usage } from './model-types';
import type { InvokeModelContext, InvokeModelEvent, ModelResultEvent } from './stage-types';

/** A block being assembled from deltas. */
type Building =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'toolUse'; toolUseId: string; name: string; json: string };

/**
 * Builds the request a model receives from an InvokeModelStage context: the
 * system prompt in both forms, everything else as it is (frozen, shared).
 *
 * @example
 * ```ts
 * const request = toModelRequest(context);
 * for await (const event of myModel.stream(request, { signal, state })) console.log(event);
 * ```
 */
export function toModelRequest(context: InvokeModelContext): ModelRequest {
  const { text, blocks } = splitSystemPrompt(context.systemPrompt);
  return {
    messages: context.messages,
    systemPrompt: text,
    systemBlocks: blocks,
    toolSpecs: context.toolSpecs,
    toolChoice: context.toolChoice,
  };
}

/**
 * The terminal of InvokeModelStage: streams the model's events through and
 * ends with the assembled {@link ModelResultEvent}.
 *
 * Consecutive text (or reasoning) deltas form one block; a tool use's input
 * deltas are joined and parsed as JSON when the message ends (empty input is
 * `{}`; text that is not JSON is kept as the string, for the tool to reject).
 * A stream without `messageStop` ends with stop reason `'endTurn'`.
 *
 * @example
 * ```ts
 * const events = registry.invoke(InvokeModelStage, createModelContext(parts), modelTerminal, { state: { get, set } });
 * ```
 */
export async function* modelTerminal(
  context: InvokeModelContext,
  run: TerminalRun<Record<string, unknown>>,
): AsyncGenerator<InvokeModelEvent, void, undefined> {
  const building: Building[] = [];
  let stopReason: StopReason = 'endTurn';
  let usage: Usage = ZERO_USAGE;
  const events = context.model.stream(toModelRequest(context), { signal: run.signal, state: run.state as Record<string, unknown> });
  for await (const event of events) {
    const last = building[building.length - 1];
    switch (event.type) {
      case 'textDelta':
      case 'reasoningDelta': {
        const kind = event.type === 'textDelta' ? 'text' : 'reasoning';
        if (last !== undefined && last.kind === kind) last.text += event.text;
        else building.push({ kind, text: event.text });
        break;
      }
      case 'toolUseStart':
        building.push({ kind: 'toolUse', toolUseId: event.toolUseId, name: event.name, json: '' });
        break;
      case 'toolUseDelta':
        if (last !== undefined && last.kind === 'toolUse') last.json += event.input;
        break;
      case 'usage':
        usage = event.usage;
        break;
      case 'messageStop':
        stopReason = event.stopReason;
        break;
      default:
        break;
    }
    yield event;
  }
  const result: ModelResultEvent = {
    type: 'modelResult',
    message: { role: 'assistant', content: building.map(toBlock) },
    stopReason,
    usage,
  };
  yield result;
}

/** The content block a finished building block becomes. */
function toBlock(block: Building): ContentBlock {
  if (block.kind === 'text') return { type: 'text', text: block.text };
  if (block.kind === 'reasoning') return { type: 'reasoning', text: block.text };
  return { type: 'toolUse', toolUseId: block.toolUseId, name: block.name, input: parseInput(block.json) };
}

/** A tool use's input from its joined JSON deltas. */
function parseInput(json: string): unknown {
  if (json.trim().length === 0) return {};
  try {
    return JSON.parse(json) as unknown;
  } catch {
    // The model produced broken JSON: hand the text on so the tool's own validation reports it.
    return json;
  }
}
