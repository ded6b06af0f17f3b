/**
 * The assistant message of one model call, assembled from its stream events:
 * what the InvokeModelStage terminal ends with.
 */
import { frozenCopy } from '../values/freeze';
import type { ContentBlock } from '../types/message';
import type { ModelStreamEvent, StopReason, ToolUseDeltaEvent, Usage } from '../types/model';
import type { ModelResultEvent } from '../types/stages';
import { ZERO_USAGE } from '../setup/usage';

/** A tool use being assembled from its input deltas. */
interface BuildingToolUse {
  kind: 'toolUse';
  toolUseId: string;
  name: string;
  /** The input's JSON deltas (see {@link append}). */
  json: unknown[];
}

/** A block being assembled from deltas (its pieces: see {@link append}). */
type Building = { kind: 'text'; text: unknown[] } | { kind: 'reasoning'; text: unknown[] } | BuildingToolUse;

/**
 * Assembles a model's stream events into the {@link ModelResultEvent} they
 * make. Consecutive text (or reasoning) deltas form one block; a tool use's
 * input deltas are joined and parsed as JSON at the end (empty input is `{}`;
 * text that is not JSON is kept as the string, for the tool to reject). A
 * delta names its tool use by `toolUseId` (or by `index`, the tool use's
 * position in the message), so the deltas of parallel tool uses may
 * interleave; one naming neither extends the last block when it is a tool
 * use. Without `messageStop`, the stop reason is `'endTurn'`.
 */
export class MessageAssembly {
  private readonly building: Building[] = [];
  // Parallel tool uses stream their input deltas interleaved, each naming its tool use by id or index.
  private readonly toolUses: BuildingToolUse[] = [];
  private readonly toolUsesById = new Map<string, BuildingToolUse>();
  private stopReason: StopReason = 'endTurn';
  private usage: Usage = ZERO_USAGE;

  /** Takes one event into the message. */
  add(event: ModelStreamEvent): void {
    const building = this.building;
    const last = building[building.length - 1];
    switch (event.type) {
      case 'textDelta':
      case 'reasoningDelta': {
        const kind = event.type === 'textDelta' ? 'text' : 'reasoning';
        if (last?.kind === kind) append(last.text, event.text);
        else building.push({ kind, text: [event.text] });
        break;
      }
      case 'toolUseStart': {
        const toolUse: BuildingToolUse = { kind: 'toolUse', toolUseId: event.toolUseId, name: event.name, json: [] };
        building.push(toolUse);
        this.toolUses.push(toolUse);
        this.toolUsesById.set(event.toolUseId, toolUse);
        break;
      }
      case 'toolUseDelta': {
        const target = this.deltaTarget(event, last);
        if (target !== undefined) append(target.json, event.input);
        break;
      }
      case 'usage':
        this.usage = event.usage;
        break;
      case 'messageStop':
        this.stopReason = event.stopReason;
        break;
    }
  }

  /**
   * The result the events make (frozen). Its objects are made here and frozen as they are made; only what came
   * from the events is copied, and only when it is an object (the types say it never is: a model's broken output).
   */
  result(): ModelResultEvent {
    return Object.freeze({
      type: 'modelResult',
      message: Object.freeze({ role: 'assistant', content: Object.freeze(this.building.map(toBlock)) }),
      stopReason: frozenPart(this.stopReason, 'stopReason'),
      usage: frozenPart(this.usage, 'usage'),
    });
  }

  /**
   * The tool use a delta extends: the one its `toolUseId` names, else the one
   * at its `index`, else (a delta naming neither) the last block when that is a
   * tool use. Undefined, and the delta ignored, when there is no such tool use.
   */
  private deltaTarget(event: ToolUseDeltaEvent, last: Building | undefined): BuildingToolUse | undefined {
    if (typeof event.toolUseId === 'string') return this.toolUsesById.get(event.toolUseId);
    if (Number.isInteger(event.index)) return this.toolUses[event.index as number];
    return last?.kind === 'toolUse' ? last : undefined;
  }
}

/** The content block a finished building block becomes (frozen). */
function toBlock(block: Building, index: number): ContentBlock {
  if (block.kind !== 'toolUse') {
    return Object.freeze({ type: block.kind, text: blockPart(joined(block.text) as string, index, 'text') });
  }
  return Object.freeze({
    type: 'toolUse',
    toolUseId: blockPart(block.toolUseId, index, 'toolUseId'),
    name: blockPart(block.name, index, 'name'),
    input: frozenInput(parseInput(joined(block.json) as string), index),
  });
}

/** A value from the events, as the frozen result holds it: a frozen copy of an object, anything else as it is. */
function frozenPart<T>(value: T, path: string): T {
  if (typeof value !== 'object' || value === null) return value;
  return frozenCopy(value, `modelResult.${path}`);
}

/** {@link frozenPart} for a field of the block at `index`, its path made only for an object. */
function blockPart<T>(value: T, index: number, field: string): T {
  if (typeof value !== 'object' || value === null) return value;
  return frozenPart(value, `message.content[${index}].${field}`);
}

/**
 * Adds a delta's piece to a block's pieces, with the outcome of `+=` on the
 * text so far. Why pieces rather than `+=`: each `+=` makes a string node
 * pointing at the text before it, so a streamed answer becomes a chain of as
 * many nodes as deltas; when an object holding that chain has been moved to
 * the old generation (V8 does so with objects of an allocation site it
 * decided to pretenure), every young collection copies the whole chain, and
 * an agent's run spent about a quarter of its time collecting garbage. Strings
 * are kept apart and joined once, into one flat string, at the end; a piece
 * that is not a string (outside the types) is added at once, as `+=` would,
 * coerced (or throwing) at the same moment.
 */
function append(pieces: unknown[], piece: unknown): void {
  if (typeof piece === 'string' && (pieces.length === 0 || typeof pieces[0] === 'string')) {
    pieces.push(piece);
    return;
  }
  const sum = (sumOf(pieces) as string) + (piece as string);
  pieces.length = 0;
  pieces.push(sum);
}

/** What `+=` over the pieces gives: the one piece as it is, else the strings joined (`''` for none, as a tool use's input starts). */
function sumOf(pieces: readonly unknown[]): unknown {
  if (pieces.length === 1) return pieces[0];
  return pieces.join('');
}

/** The pieces' sum; the list is emptied, so that it holds none of them any longer. */
function joined(pieces: unknown[]): unknown {
  const sum = sumOf(pieces);
  pieces.length = 0;
  return sum;
}

/** How deep parsed input is frozen where it lies; deeper input is left to the copy's walk (see {@link frozenInput}). */
const PARSED_DEPTH = 64;

/**
 * A tool use's parsed input, frozen where it lies: the parse made every part of it, so no one else holds any.
 * Input nested deeper than {@link PARSED_DEPTH} goes through the copy's walk instead, which takes the parts
 * frozen so far as they are and reports input nested too deep as it reports any value.
 */
function frozenInput(value: unknown, index: number): unknown {
  if (typeof value !== 'object' || value === null || freezeParsed(value, 0)) return value;
  return blockPart(value, index, 'input');
}

/** Freezes a parsed value's parts, then the value; false, leaving the value unfrozen, when it is too deep. */
function freezeParsed(value: object, depth: number): boolean {
  if (depth === PARSED_DEPTH) return false;
  for (const part of Object.values(value)) {
    if (typeof part === 'object' && part !== null && !freezeParsed(part as object, depth + 1)) return false;
  }
  Object.freeze(value);
  return true;
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
