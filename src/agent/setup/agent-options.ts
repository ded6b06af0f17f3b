import type { Middleware } from '../../core/index';
import type { MiddlewareRegistry } from '../../core/index';
import type { SystemPrompt } from '../../core/index';
import { hasSignalMembers, SIGNAL_MEMBERS } from '../../util/abort-signal';
import { describeValue } from '../../util/describe-value';
import { cannotCopy, invalid } from '../errors';
import type { Message } from '../types/message';
import type { AgentSession, AgentSnapshot } from '../types/snapshot';
import type { AgentParent } from '../types/view';
import type { Model } from '../types/model';
import type { Tool, ToolChoice } from '../types/tool';
import { readProblem, type PathStep } from '../values/value-walk';
import { isObject } from '../../util/is-object';
import { isRecord } from '../values/value-shapes';
import { NONE } from '../values/freeze';

/** Options of {@link Agent}. */
export interface AgentOptions {
  /** The model every InvokeModelStage call streams from. */
  readonly model: Model;
  /** The tools the model may call (names must be unique). */
  readonly tools?: readonly Tool[];
  /** The system prompt, as a string or as blocks (cache points kept). */
  readonly systemPrompt?: SystemPrompt;
  /** Where the handlers of the three agent stages are registered. Default: a new, empty registry. */
  readonly registry?: MiddlewareRegistry;
  /** The model's initial state (copied once; the agent's copy is frozen). Default `{}`. */
  readonly modelState?: Record<string, unknown>;
  /** The initial conversation (copied once and frozen). */
  readonly messages?: readonly Message[];
  /** Tool choice passed to every model call. */
  readonly toolChoice?: ToolChoice;
  /** The agent's name, for handlers (`context.agent.name`) and traces. Default `'agent'`. */
  readonly name?: string;
  /** Where the agent saves its snapshot after every completed turn and at the end of every run. */
  readonly session?: AgentSession;
  /** The state to start from, as `agent.snapshot()` made it (instead of `messages` and `modelState`). */
  readonly snapshot?: AgentSnapshot;
  /** Whether tools bundles contribute to the registry's ancestors join the tool list (those of the registry itself always do). Default `true`. */
  readonly inheritTools?: boolean;
  /** The agent and tool call this agent works for, when it is a sub-agent (shown in its view). */
  readonly parent?: AgentParent;
  /**
   * The most turns (a model call and the tool calls it asks for) a run makes: a run whose decision after this
   * many turns would go on ends instead, with stop reason `'maxTurns'`. A positive integer, or `Infinity` for no
   * limit. Default 20, the AI SDK's default step count for its agents.
   */
  readonly maxTurns?: number;
}

/** What a run takes: a user text, one message, several messages, or nothing (on a resume). */
export type AgentInput = string | Message | readonly Message[] | undefined;

/** Options of one run. */
export interface AgentRunOptions {
  /** Cancels the run like {@link Agent.cancel}. */
  readonly signal?: AbortSignal;
  /** Shared by reference with every handler and tool of the run. Default: a new `{}`. */
  readonly invocationState?: Record<string, unknown>;
  /** Responses to the pending interrupts, by interrupt id; given to resume a halted run. */
  readonly interruptResponses?: Readonly<Record<string, unknown>>;
  /** Bundles for this run only, registered on a child of the agent's registry (their tools join the run's tool list). */
  readonly use?: readonly Middleware[];
}

/** A run's options, each read once before the run starts. */
export interface RunSettings {
  /** The caller's signal, if any. */
  readonly signal: AbortSignal | undefined;
  /** Whether that signal was aborted when it was read. */
  readonly aborted: boolean;
  /** The caller's invocation state, when given. */
  readonly invocationState: Record<string, unknown> | undefined;
  /** The interrupt responses by id, when the run is a resume. */
  readonly responses: ReadonlyMap<string, unknown> | undefined;
  /** The run's own bundles (a copy of the array given). */
  readonly use: readonly Middleware[];
}

/**
 * Reads the named properties of a caller's object, each once; undefined for a value that is not an object (a
 * function included), whose parts the caller's error then names as a whole.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` naming the property whose reading threw (the thrown value is the cause).
 */
export function readFields<TKey extends string>(source: object, keys: readonly TKey[], root: string): Record<TKey, unknown>;
export function readFields<TKey extends string>(source: unknown, keys: readonly TKey[], root: string): Record<TKey, unknown> | undefined;
export function readFields<TKey extends string>(source: unknown, keys: readonly TKey[], root: string): Record<TKey, unknown> | undefined {
  if (!isObject(source)) return undefined;
  const fields = {} as Record<TKey, unknown>;
  for (const key of keys) fields[key] = readPart(source, key, root);
  return fields;
}

/**
 * Reads one part of a caller's value, `root`.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` naming the part (`root[key]`) when reading it throws (the thrown value
 *   is the cause).
 */
export function readPart(source: object, key: PathStep, root: string): unknown {
  try {
    return (source as Record<PathStep, unknown>)[key];
  } catch (error) {
    throw cannotCopy(readProblem(root, [key], error), error);
  }
}

/**
 * Reads and checks one run's options, every value once.
 *
 * @param resume - The responses given to `agent.resume()`, which take the place of `options.interruptResponses`.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for options that are not an object, a signal that is not an
 *   AbortSignal, state or responses that are not a plain object, or a value whose reading throws.
 */
export function readRunOptions(options: AgentRunOptions, resume?: { readonly responses: unknown }): RunSettings {
  if (!isObject(options)) throw invalid(`run options must be an object, got ${describeValue(options)}`);
  const { signal, invocationState, interruptResponses, use } = readFields(
    options,
    ['signal', 'invocationState', 'interruptResponses', 'use'],
    'options',
  );
  let aborted = false;
  if (signal !== undefined) {
    const parts = readFields(signal, SIGNAL_MEMBERS, 'options.signal');
    if (parts === undefined || !hasSignalMembers(parts)) {
      throw invalid(`options.signal must be an AbortSignal, got ${describeValue(signal)}`);
    }
    aborted = parts.aborted as boolean;
  }
  checkRecord(invocationState, 'options.invocationState');
  const [responses, root] = resume === undefined ? [interruptResponses, 'options.interruptResponses'] : [resume.responses, 'responses'];
  checkRecord(responses, root);
  return {
    signal: signal as AbortSignal | undefined,
    aborted,
    invocationState: invocationState as Record<string, unknown> | undefined,
    responses: responses === undefined ? undefined : readResponses(responses as object, root),
    use: readBundles(use),
  };
}

/** A run's bundles, each element read once. */
function readBundles(use: unknown): readonly Middleware[] {
  if (use === undefined) return NONE;
  if (!Array.isArray(use)) throw invalid(`options.use must be an array of bundles { name, setup(registrar) }, got ${describeValue(use)}`);
  const length = readPart(use, 'length', 'options.use') as number;
  const bundles: Middleware[] = [];
  for (let index = 0; index < length; index++) bundles.push(readPart(use, index, 'options.use') as Middleware);
  return Object.freeze(bundles);
}

/** Fails unless the value is undefined or a non-array object. */
function checkRecord(value: unknown, name: string): void {
  if (value !== undefined && !isRecord(value)) throw invalid(`${name} must be a plain object, got ${describeValue(value)}`);
}

/** The interrupt responses, each read once. */
function readResponses(responses: object, root: string): ReadonlyMap<string, unknown> {
  let ids: string[];
  try {
    ids = Object.keys(responses);
  } catch (error) {
    throw cannotCopy(readProblem(root, [], error), error);
  }
  return new Map(ids.map((id) => [id, readPart(responses, id, root)]));
}
