import { splitSystemPrompt } from '../system-prompt';
import type { TerminalRun } from '../stage/invoke-types';
import { AbortRace, ignore } from './abort-race';
import { invalidModelStream } from './call-errors';
import { adopt } from './freeze';
import { ZERO_USAGE } from './usage';
import type { ContentBlock } from './message-types';
import type { Model, ModelRequest, ModelStreamEvent, StopReason, ToolUseDeltaEvent, Usage } from './model-types';
import type { InvokeModelContext, InvokeModelEvent, ModelResultEvent } from './stage-types';

/** A tool use being assembled from its input deltas. */
interface BuildingToolUse {
  kind: 'toolUse';
  toolUseId: string;
  name: string;
  json: string;
}

/** A block being assembled from deltas. */
type Building = { kind: 'text'; text: string } | { kind: 'reasoning'; text: string } | BuildingToolUse;

/**
 * Builds the request a model receives from an InvokeModelStage context
 * (frozen): the system prompt in both forms, everything else as it is (frozen, shared).
 *
 * @example
 * ```ts
 * const request = toModelRequest(createModelContext({ model: myModel, messages: [], systemPrompt, toolSpecs, invocationState: {} }));
 * for await (const event of myModel.stream(request, { signal, state: undefined })) console.log(event);
 * ```
 */
export function toModelRequest(context: InvokeModelContext): ModelRequest {
  const { text, blocks } = splitSystemPrompt(context.systemPrompt);
  return Object.freeze({
    messages: context.messages,
    systemPrompt: text,
    systemBlocks: blocks,
    toolSpecs: context.toolSpecs,
    toolChoice: context.toolChoice,
  });
}

/**
 * The terminal of InvokeModelStage: streams the model's events through and
 * ends with the assembled {@link ModelResultEvent} (frozen).
 *
 * Consecutive text (or reasoning) deltas form one block; a tool use's input
 * deltas are joined and parsed as JSON when the message ends (empty input is
 * `{}`; text that is not JSON is kept as the string, for the tool to reject).
 * A delta names its tool use by `toolUseId` (or by `index`, the tool use's
 * position in the message), so the deltas of parallel tool uses may
 * interleave; one naming neither extends the last block when it is a tool use.
 * A stream without `messageStop` ends with stop reason `'endTurn'`. When the
 * signal aborts while the model's `next()` is pending, the terminal stops
 * waiting at once and throws the signal's reason; the model's stream is
 * closed without waiting for it.
 *
 * @throws MiddlewareError `ERR_INVALID_HANDLER` when `model.stream` is not a function or does not return an async iterable.
 * @example
 * ```ts
 * const events = registry.invoke(InvokeModelStage, createModelContext({ model, messages: [], systemPrompt, toolSpecs, invocationState: {} }), modelTerminal, { state: { get, set } });
 * ```
 */
export async function* modelTerminal(
  context: InvokeModelContext,
  run: TerminalRun<unknown>,
): AsyncGenerator<InvokeModelEvent, void, undefined> {
  const { signal } = run;
  const { model } = context;
  const stream = (model as Partial<Model> | undefined)?.stream;
  if (typeof stream !== 'function') throw invalidModelStream(stream);
  if (signal.aborted) throw signal.reason;
  const iterator = openStream(
    stream.call(model, toModelRequest(context), Object.freeze({ signal, state: run.state as Record<string, unknown> })),
  );
  const building: Building[] = [];
  // Parallel tool uses stream their input deltas interleaved, each naming its tool use by id or index.
  const toolUses: BuildingToolUse[] = [];
  const toolUsesById = new Map<string, BuildingToolUse>();
  let stopReason: StopReason = 'endTurn';
  let usage: Usage = ZERO_USAGE;
  const race = new AbortRace(signal);
  // As in for await: an iterator that finished or failed is not closed; one left early is.
  let finished = false;
  try {
    for (;;) {
      let step: IteratorResult<ModelStreamEvent>;
      try {
        step = await race.wait(iterator.next());
      } catch (error) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- signal.aborted changes while this awaits, which TypeScript's narrowing from before the await does not see
        if (!signal.aborted) finished = true;
        throw error;
      }
      if (step.done === true) {
        finished = true;
        break;
      }
      const event = step.value;
      const last = building[building.length - 1];
      switch (event.type) {
        case 'textDelta':
        case 'reasoningDelta': {
          const kind = event.type === 'textDelta' ? 'text' : 'reasoning';
          if (last?.kind === kind) last.text += event.text;
          else building.push({ kind, text: event.text });
          break;
        }
        case 'toolUseStart': {
          const toolUse: BuildingToolUse = { kind: 'toolUse', toolUseId: event.toolUseId, name: event.name, json: '' };
          building.push(toolUse);
          toolUses.push(toolUse);
          toolUsesById.set(event.toolUseId, toolUse);
          break;
        }
        case 'toolUseDelta': {
          const target = deltaTarget(event, last, toolUses, toolUsesById);
          if (target !== undefined) target.json += event.input;
          break;
        }
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
  } finally {
    race.dispose();
    if (!finished) await close(iterator, signal.aborted);
  }
  const result: ModelResultEvent = {
    type: 'modelResult',
    message: { role: 'assistant', content: building.map(toBlock) },
    stopReason,
    usage,
  };
  yield adopt(result, 'modelResult');
}

/**
 * The tool use a delta extends: the one its `toolUseId` names, else the one
 * at its `index`, else (a delta naming neither) the last block when that is a
 * tool use. Undefined, and the delta ignored, when there is no such tool use.
 */
function deltaTarget(
  event: ToolUseDeltaEvent,
  last: Building | undefined,
  toolUses: readonly BuildingToolUse[],
  toolUsesById: ReadonlyMap<string, BuildingToolUse>,
): BuildingToolUse | undefined {
  if (typeof event.toolUseId === 'string') return toolUsesById.get(event.toolUseId);
  if (typeof event.index === 'number' && Number.isInteger(event.index)) return toolUses[event.index];
  return last?.kind === 'toolUse' ? last : undefined;
}

/**
 * The iterator of what `model.stream()` returned.
 *
 * @throws MiddlewareError `ERR_INVALID_HANDLER` when it is not an async iterable (a promise, null, an array).
 */
function openStream(returned: unknown): AsyncIterator<ModelStreamEvent> {
  const open = (returned as Partial<AsyncIterable<ModelStreamEvent>> | null | undefined)?.[Symbol.asyncIterator];
  if (typeof open !== 'function') {
    const isPromise = typeof (returned as PromiseLike<unknown> | null)?.then === 'function';
    // An async stream() rejecting later must not surface as an unhandled rejection next to this error.
    if (isPromise) ignore(returned as PromiseLike<unknown>);
    throw invalidModelStream(undefined, { value: returned, isPromise });
  }
  return open.call(returned);
}

/**
 * Closes the model's stream after the terminal left it early. When the signal
 * aborted, the model may be stuck in an await it never leaves: its `return()`
 * is requested but not waited for, and a failure of it dropped.
 */
async function close(iterator: AsyncIterator<ModelStreamEvent>, aborted: boolean): Promise<void> {
  if (typeof iterator.return !== 'function') return;
  if (!aborted) {
    await iterator.return();
    return;
  }
  try {
    ignore(iterator.return());
  } catch {
    // A model that cannot be closed is dropped all the same.
  }
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
