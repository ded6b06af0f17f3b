import { MiddlewareError } from '../errors';
import type { MiddlewareRegistry } from '../registry';
import { describeValue } from '../stage';
import type { SystemPrompt } from '../system-prompt';
import type { Message } from './message-types';
import type { Model } from './model-types';
import { AgentStreamStage } from './stages';
import type { Tool, ToolChoice } from './tool-types';

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
}

/** The messages a run's input stands for. */
export function toMessages(input: AgentInput): readonly Message[] {
  if (input === undefined) return [];
  if (typeof input === 'string') return [{ role: 'user', content: [{ type: 'text', text: input }] }];
  if (Array.isArray(input)) return input as readonly Message[];
  return [input as Message];
}

/**
 * Checks that each message has a known role and a content array.
 *
 * @param expected - What the caller may pass where the messages came from, for the error message.
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for a malformed message.
 */
export function checkMessages(messages: readonly Message[], expected: string): readonly Message[] {
  for (const message of messages) {
    const ok = message !== null && typeof message === 'object' && (message.role === 'user' || message.role === 'assistant') && Array.isArray(message.content);
    if (!ok) throw invalid(`${expected}, where a message is { role: 'user' | 'assistant', content: ContentBlock[] }; got ${describeValue(message)}`);
  }
  return messages;
}

/**
 * Checks the options of `new Agent()` beyond the model and the tools: each
 * one the agent cannot use is reported now rather than as a TypeError in the
 * middle of a run.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` naming the option.
 */
export function checkAgentOptions(options: AgentOptions): void {
  const { tools, systemPrompt, registry, modelState, messages, toolChoice } = options as { readonly [K in keyof AgentOptions]?: unknown };
  if (tools !== undefined && !Array.isArray(tools)) throw invalid(`options.tools must be an array of tools, got ${describeValue(tools)}`);
  if (systemPrompt !== undefined && typeof systemPrompt !== 'string' && !(Array.isArray(systemPrompt) && systemPrompt.every(isObject))) {
    throw invalid(`options.systemPrompt must be a string or an array of blocks ({ text } or { cachePoint }), got ${describeValue(systemPrompt)}`);
  }
  if (registry !== undefined && !(isObject(registry) && typeof (registry as { invoke?: unknown }).invoke === 'function')) {
    throw invalid(`options.registry must be a MiddlewareRegistry, got ${describeValue(registry)}`);
  }
  if (modelState !== undefined && !(isObject(modelState) && !Array.isArray(modelState))) {
    throw invalid(`options.modelState must be a plain object, got ${describeValue(modelState)}`);
  }
  if (messages !== undefined && !Array.isArray(messages)) throw invalid(`options.messages must be an array of messages { role, content }, got ${describeValue(messages)}`);
  if (toolChoice !== undefined && !isToolChoice(toolChoice)) {
    throw invalid(`options.toolChoice must be { type: 'auto' }, { type: 'any' } or { type: 'tool', name }, got ${describeValue(toolChoice)}`);
  }
}

/** True for a non-null object. */
function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/** True for one of the three tool-choice shapes. */
function isToolChoice(value: unknown): boolean {
  if (!isObject(value)) return false;
  const { type, name } = value as { type?: unknown; name?: unknown };
  return type === 'auto' || type === 'any' || (type === 'tool' && typeof name === 'string');
}

/**
 * Checks the shape of one run's options.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for a signal that is not an AbortSignal or state that is not a plain object.
 */
export function checkRunOptions(options: AgentRunOptions): void {
  if (options === null || typeof options !== 'object') throw invalid(`run options must be an object, got ${describeValue(options)}`);
  const signal = options.signal as unknown;
  if (signal !== undefined && (signal === null || typeof signal !== 'object' || typeof (signal as AbortSignal).aborted !== 'boolean' || typeof (signal as AbortSignal).addEventListener !== 'function')) {
    throw invalid(`options.signal must be an AbortSignal, got ${describeValue(signal)}`);
  }
  for (const key of ['invocationState', 'interruptResponses'] as const) {
    const value = options[key] as unknown;
    if (value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value))) throw invalid(`options.${key} must be a plain object, got ${describeValue(value)}`);
  }
}

/** The error of a malformed agent option or run input, on AgentStreamStage. */
export function invalid(problem: string): MiddlewareError {
  return new MiddlewareError({ code: 'ERR_INVALID_OPTIONS', stage: AgentStreamStage.name, message: `Agent: ${problem}.` });
}
