import { current, freeze, isDraft } from 'immer';
import { describeValue } from '../util/describe-value';
import { frozenCopy } from '../agent/values/freeze';
import type { Model, ModelCallOptions, ModelRequest, ModelStreamEvent, StopReason, Usage } from '../agent/types/model';
import { invalidTurn, scriptExhausted } from './errors';

/** One scripted model call: the events to play back, or a failure. */
export interface ScriptedTurn {
  /** Events streamed, in order (before the failure, when `error` is set). */
  readonly events?: readonly ModelStreamEvent[];
  /** Thrown (as the same object) after the events, making the call fail. */
  readonly error?: unknown;
  /** Keys written to the model-state draft when the call starts (none without a state binding). */
  readonly stateWrites?: Readonly<Record<string, unknown>>;
  /** Keys deleted from the model-state draft when the call starts (none without a state binding). */
  readonly stateDeletes?: readonly string[];
  /** Called with the request when the call starts (to cancel the agent mid-call in a test, say). */
  readonly onCall?: (request: ModelRequest) => void;
}

/** What a scripted model received in one call. */
export interface ScriptedCall {
  /** The request, as the model received it. */
  readonly request: ModelRequest;
  /** The model state the call saw (a frozen plain snapshot of its draft, before the turn's writes). */
  readonly state: unknown;
  /** The call's abort signal. */
  readonly signal: AbortSignal;
}

/**
 * A model that plays back a script, one turn per call, and records what it
 * received. For tests and demos: no network, fully deterministic.
 *
 * @example
 * ```ts
 * const model = new ScriptedModel([toolUseTurn([{ name: 'clock', input: {} }]), textTurn('It is noon.')]);
 * const agent = new Agent({ model, tools: [clock] });
 * await agent.invoke('What time is it?');
 * model.calls.length; // 2
 * ```
 */
export class ScriptedModel implements Model {
  private readonly turns: readonly ScriptedTurn[];
  private readonly recorded: ScriptedCall[] = [];
  /** The frozen copy `calls` hands out, made again only after a new call. */
  private snapshot: readonly ScriptedCall[] | undefined;

  /**
   * Creates a model that answers call N with `turns[N]`. Each turn's events
   * are copied and frozen here, so the events it yields are frozen.
   *
   * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `turns` is not an array of turn objects.
   */
  constructor(turns: readonly ScriptedTurn[]) {
    if (!Array.isArray(turns) || !turns.every((turn: unknown) => turn !== null && typeof turn === 'object')) {
      throw invalidTurn(
        `new ScriptedModel(turns): turns must be an array of turns built with textTurn(), toolUseTurn() or failingTurn(); got ${describeValue(turns)}`,
      );
    }
    this.turns = Object.freeze(
      (turns as readonly ScriptedTurn[]).map((turn, index) =>
        turn.events === undefined ? turn : { ...turn, events: frozenCopy(turn.events, `turns[${index}].events`) },
      ),
    );
  }

  /** Every call received, in order: a frozen copy (of frozen records), taken when a call was added since the last one. */
  get calls(): readonly ScriptedCall[] {
    this.snapshot ??= Object.freeze([...this.recorded]);
    return this.snapshot;
  }

  /**
   * Plays back the next turn. Stops with the signal's reason when the signal is aborted between events.
   *
   * @throws MiddlewareError `ERR_SCRIPT_EXHAUSTED` when called more often than the script has turns.
   */
  async *stream(
    request: ModelRequest,
    options: ModelCallOptions<Record<string, unknown>>,
  ): AsyncGenerator<ModelStreamEvent, void, undefined> {
    const index = this.recorded.length;
    const { state, signal } = options;
    const snapshot: unknown = isDraft(state) ? freeze(current(state), true) : frozenCopy(state, 'state');
    this.recorded.push(Object.freeze({ request, state: snapshot, signal }));
    this.snapshot = undefined;
    const turn = this.turns[index];
    if (turn === undefined) {
      throw scriptExhausted(index + 1, this.turns.length);
    }
    turn.onCall?.(request);
    // Without a state binding (a bare modelTerminal invoke) there is no draft to change.
    if (state !== undefined) {
      for (const [key, value] of Object.entries(turn.stateWrites ?? {})) state[key] = value;
      for (const key of turn.stateDeletes ?? []) delete state[key];
    }
    for (const event of turn.events ?? []) {
      if (signal.aborted) throw signal.reason;
      yield event;
    }
    if ('error' in turn) throw turn.error;
  }
}

/** Options shared by the turn builders. */
export interface TurnOptions {
  /** The stop reason of the turn's `messageStop`. */
  readonly stopReason?: StopReason;
  /** Reported token counts. */
  readonly usage?: Usage;
}

/** Wraps a turn's body in `messageStart`, optional `usage` and `messageStop`. */
function frame(body: readonly ModelStreamEvent[], stopReason: StopReason, usage: Usage | undefined): ModelStreamEvent[] {
  const events: ModelStreamEvent[] = [{ type: 'messageStart', role: 'assistant' }, ...body];
  if (usage !== undefined) events.push({ type: 'usage', usage });
  events.push({ type: 'messageStop', stopReason });
  return events;
}

/**
 * A turn that answers with text (streamed as one delta per word) and stops with `endTurn`.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `text` is not a string.
 * @example
 * ```ts
 * const model = new ScriptedModel([textTurn('Hello there.', { usage: { inputTokens: 5, outputTokens: 3, totalTokens: 8 } })]);
 * ```
 */
export function textTurn(text: string, options: TurnOptions = {}): ScriptedTurn {
  if (typeof text !== 'string') throw invalidTurn(`textTurn(text): text must be a string, got ${describeValue(text)}`);
  const pieces = text.match(/\S+\s*|\s+/g) ?? [];
  return frozenCopy({
    events: frame(
      pieces.map((piece) => ({ type: 'textDelta', text: piece })),
      options.stopReason ?? 'endTurn',
      options.usage,
    ),
  });
}

/** A tool use a {@link toolUseTurn} asks for. */
export interface ScriptedToolUse {
  /** The tool's name. */
  readonly name: string;
  /** Its input (sent as JSON text). */
  readonly input: unknown;
  /** Its id. Default: `tool-<n>` with n counting from 1 within the turn. */
  readonly toolUseId?: string;
}

/**
 * A turn that asks for tool calls (after optional text) and stops with `toolUse`.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` unless `toolUses` is an array of `{ name, input }`.
 * @example
 * ```ts
 * const model = new ScriptedModel([toolUseTurn([{ name: 'weather', input: { city: 'Oslo' } }]), textTurn('Sunny.')]);
 * ```
 */
export function toolUseTurn(toolUses: readonly ScriptedToolUse[], options: TurnOptions & { readonly text?: string } = {}): ScriptedTurn {
  const given: unknown = toolUses;
  if (!Array.isArray(given) || !toolUses.every((toolUse: unknown) => typeof (toolUse as ScriptedToolUse | null)?.name === 'string')) {
    throw invalidTurn(`toolUseTurn(toolUses): toolUses must be an array of { name, input, toolUseId? }, got ${describeValue(toolUses)}`);
  }
  const body: ModelStreamEvent[] = [];
  if (options.text !== undefined) body.push({ type: 'textDelta', text: options.text });
  toolUses.forEach((toolUse, index) => {
    body.push({ type: 'toolUseStart', toolUseId: toolUse.toolUseId ?? `tool-${index + 1}`, name: toolUse.name });
    body.push({ type: 'toolUseDelta', input: JSON.stringify(toolUse.input) });
  });
  return frozenCopy({ events: frame(body, options.stopReason ?? 'toolUse', options.usage) });
}

/**
 * A turn that fails with `error` (the same object), after `events` if given.
 *
 * @example
 * ```ts
 * const model = new ScriptedModel([failingTurn(new Error('overloaded')), textTurn('Second try.')]);
 * ```
 */
export function failingTurn(error: unknown, events: readonly ModelStreamEvent[] = []): ScriptedTurn {
  // The error is thrown as the very object given, so only the events are copied.
  return Object.freeze({ events: frozenCopy(events, 'events'), error });
}
