/**
 * `pii()`: personal data kept from the model, from the caller and from the
 * history (MW-273 – MW-276): e-mail addresses, card numbers, IP addresses,
 * URLs, API keys and patterns of your own, in user input, model output and
 * tool results, each with a strategy of its own.
 */
import type { Middleware, MiddlewareResult, Next } from '../../core/index';
import { invalidOption } from '../../middleware/errors';
import { checkOptionsObject } from '../../middleware/options';
import { refuseUnknownOptions } from './known-options';
import { named } from '../../middleware/named';
import { setOwnEntry } from '../../util/own-entry';
import { piiDetected } from '../errors';
import type { ContentBlock, Message, TextBlock } from '../types/message';
import type { InvokeModelContext, InvokeModelEvent, ModelResultEvent, ToolResultEvent } from '../types/stages';
import { ExecuteToolStage, InvokeModelStage, isModelResult } from '../stages';
import { BUILT_IN_DETECTORS, customDetector, PII_TYPES, type Detector, type PiiPattern, type PiiType } from './pii-detectors';
import { redactText, StreamRedaction, type PiiStrategy, type Redaction } from './pii-redaction';

export type { PiiPattern, PiiType } from './pii-detectors';
export type { PiiStrategy } from './pii-redaction';

/** Options of {@link pii}: what to look for, and the strategy for each place (a place without one is left alone; at least one). */
export interface PiiOptions {
  /** The built-in kinds to look for. Default: all of them. */
  readonly types?: readonly PiiType[];
  /** Kinds of your own, tried after the built-in ones. */
  readonly patterns?: readonly PiiPattern[];
  /** For the text of user messages, as every model call sees them (the history keeps them as they are). */
  readonly input?: PiiStrategy;
  /** For the model's text: its streamed deltas and the message the history keeps. */
  readonly output?: PiiStrategy;
  /** For tool results: their text blocks and the strings of their JSON blocks, as the model and the history get them. */
  readonly toolResults?: PiiStrategy;
}

const KNOWN = ['types', 'patterns', 'input', 'output', 'toolResults'];
const STRATEGIES: readonly PiiStrategy[] = ['redact', 'mask', 'hash', 'block'];
const SHAPE = '{ types?, patterns?, input?, output?, toolResults? }';

/**
 * A bundle named `pii`. With `input`, an InvokeModelStage Input handler
 * rewrites the text blocks of user messages each model call sees; with
 * `output`, an InvokeModelStage Wrap handler rewrites the model's text as
 * it streams (holding back a tail that could still be part of a match) and
 * the message it delivers; with `toolResults`, an ExecuteToolStage Output
 * handler rewrites tool results. All three are named `pii`.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`handler: 'pii'`) at once for bad or unknown options, or no place;
 *   `ERR_PII_DETECTED` during a run where the strategy is `block` and something is found.
 * @example
 * ```ts
 * registry.use(pii({ input: 'redact', output: 'mask', toolResults: 'hash' }));
 * ```
 */
export function pii(options: PiiOptions): Middleware {
  checkOptionsObject('pii', options, SHAPE);
  refuseUnknownOptions('pii', options, KNOWN, SHAPE);
  const detectors = readDetectors(options);
  const places = {
    input: readStrategy('input', options.input),
    output: readStrategy('output', options.output),
    toolResults: readStrategy('toolResults', options.toolResults),
  };
  if (places.input === undefined && places.output === undefined && places.toolResults === undefined)
    throw invalidOption('pii', 'give a strategy for input, output, toolResults or several', options);
  const redaction = (strategy: PiiStrategy, stage: string, where: string): Redaction => ({
    detectors,
    strategy,
    blocked: (detector) => {
      throw piiDetected(stage, where, detector.name);
    },
  });
  return {
    name: 'pii',
    setup(registrar) {
      if (places.input !== undefined) {
        const input = redaction(places.input, InvokeModelStage.name, 'user input');
        registrar.add(
          InvokeModelStage.Input,
          named('pii', (context: InvokeModelContext) => redactInput(input, context)),
        );
      }
      if (places.output !== undefined) {
        const output = redaction(places.output, InvokeModelStage.name, 'model output');
        registrar.add(
          InvokeModelStage.Wrap,
          named('pii', (context: InvokeModelContext, next: Next<InvokeModelContext, InvokeModelEvent>) => redactOutput(output, next)),
        );
      }
      if (places.toolResults !== undefined) {
        const results = redaction(places.toolResults, ExecuteToolStage.name, 'a tool result');
        registrar.add(
          ExecuteToolStage.Output,
          named('pii', (result: MiddlewareResult<ToolResultEvent>) => redactToolResult(results, result)),
        );
      }
    },
  };
}

function readStrategy(place: string, value: unknown): PiiStrategy | undefined {
  if (value === undefined) return undefined;
  if (!STRATEGIES.includes(value as PiiStrategy))
    throw invalidOption('pii', `options.${place} must be 'redact', 'mask', 'hash' or 'block'`, value);
  return value as PiiStrategy;
}

function readDetectors(options: PiiOptions): readonly Detector[] {
  const types: unknown = options.types ?? PII_TYPES;
  if (!Array.isArray(types) || !types.every((type) => PII_TYPES.includes(type as PiiType)))
    throw invalidOption('pii', `options.types must be an array of ${PII_TYPES.map((type) => `'${type}'`).join(', ')}`, types);
  const patterns: unknown = options.patterns ?? [];
  if (!Array.isArray(patterns)) throw invalidOption('pii', 'options.patterns must be an array of { name, pattern, maxLength? }', patterns);
  const names = new Set<string>(PII_TYPES);
  const custom = patterns.map((value: unknown) => {
    const pattern = value as Partial<PiiPattern> | null;
    const valid =
      typeof pattern === 'object' &&
      pattern !== null &&
      typeof pattern.name === 'string' &&
      /^[A-Za-z][A-Za-z0-9_]*$/.test(pattern.name) &&
      pattern.pattern instanceof RegExp;
    if (!valid)
      throw invalidOption(
        'pii',
        'each of options.patterns must be { name: a letter then letters, digits or _, pattern: RegExp, maxLength? }',
        value,
      );
    if (names.has(pattern.name)) throw invalidOption('pii', `the pattern name ${pattern.name} is taken`, value);
    names.add(pattern.name);
    const maxLength = pattern.maxLength ?? 100;
    if (!Number.isInteger(maxLength) || maxLength < 1)
      throw invalidOption('pii', `options.patterns' maxLength must be an integer of at least 1`, pattern.maxLength);
    return customDetector(pattern as PiiPattern, maxLength);
  });
  return Object.freeze([...BUILT_IN_DETECTORS.filter((detector) => types.includes(detector.name)), ...custom]);
}

/** The context whose user messages' text blocks are redacted (messages and blocks left as they are when nothing changes). */
async function redactInput(redaction: Redaction, context: InvokeModelContext): Promise<InvokeModelContext> {
  let changed = false;
  const messages: Message[] = [];
  for (const message of context.messages) {
    if (message.role !== 'user') {
      messages.push(message);
      continue;
    }
    const content = await redactBlocks(redaction, message.content);
    changed ||= content !== message.content;
    messages.push(content === message.content ? message : Object.freeze({ ...message, content }));
  }
  return changed ? { ...context, messages: Object.freeze(messages) } : context;
}

/** The text blocks of `content` redacted; `content` itself when none changes. */
async function redactBlocks(redaction: Redaction, content: readonly ContentBlock[]): Promise<readonly ContentBlock[]> {
  let changed = false;
  const blocks: ContentBlock[] = [];
  for (const block of content) {
    if (block.type !== 'text') {
      blocks.push(block);
      continue;
    }
    const text = await redactText(redaction, block.text);
    changed ||= text !== block.text;
    blocks.push(text === block.text ? block : Object.freeze({ ...block, text }));
  }
  return changed ? Object.freeze(blocks) : content;
}

/**
 * The model's events with its text redacted: each run of text deltas (a text
 * block) through one {@link StreamRedaction}, flushed before any other event;
 * the delivered message's text blocks redacted whole, which gives the same text.
 */
async function* redactOutput(
  redaction: Redaction,
  next: Next<InvokeModelContext, InvokeModelEvent>,
): AsyncGenerator<InvokeModelEvent, void, undefined> {
  const stream = new StreamRedaction(redaction);
  for await (const event of next()) {
    if (event.type === 'textDelta') {
      const text = await stream.push(event.text);
      if (text !== '') yield { ...event, text };
      continue;
    }
    if (event.type === 'attempt-boundary') {
      // A failed attempt's held text never comes out: the consumer drops what it showed of it.
      stream.drop();
      yield event;
      continue;
    }
    const rest = await stream.flush();
    if (rest !== '') yield { type: 'textDelta', text: rest };
    yield isModelResult(event) ? await redactResult(redaction, event) : event;
  }
  const rest = await stream.flush();
  if (rest !== '') yield { type: 'textDelta', text: rest };
}

async function redactResult(redaction: Redaction, result: ModelResultEvent): Promise<ModelResultEvent> {
  const content = await redactBlocks(redaction, result.message.content);
  return content === result.message.content ? result : { ...result, message: { ...result.message, content } };
}

/** The tool result with its text blocks and the strings of its JSON blocks redacted. */
async function redactToolResult(
  redaction: Redaction,
  result: MiddlewareResult<ToolResultEvent>,
): Promise<MiddlewareResult<ToolResultEvent>> {
  const { toolResult } = result.value;
  let changed = false;
  const content: (TextBlock | { type: 'json'; json: unknown })[] = [];
  for (const block of toolResult.content) {
    if (block.type === 'text') {
      const text = await redactText(redaction, block.text);
      changed ||= text !== block.text;
      content.push(text === block.text ? block : { ...block, text });
      continue;
    }
    const json = await redactJson(redaction, block.json);
    changed ||= json !== block.json;
    content.push(json === block.json ? block : { ...block, json });
  }
  return changed ? result.replace({ ...result.value, toolResult: { ...toolResult, content } }) : result;
}

/** The strings of a JSON value redacted (keys kept, `__proto__` as an own key); the value itself when none changes. */
async function redactJson(redaction: Redaction, value: unknown): Promise<unknown> {
  if (typeof value === 'string') return redactText(redaction, value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    const items = await Promise.all(value.map((item: unknown) => redactJson(redaction, item)));
    return items.every((item, index) => item === value[index]) ? value : items;
  }
  let changed = false;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const redacted = await redactJson(redaction, item);
    changed ||= redacted !== item;
    setOwnEntry(copy, key, redacted);
  }
  return changed ? copy : value;
}
