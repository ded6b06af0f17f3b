import type { MiddlewareRegistry } from '../../core/index';
import { toSystemBlocks, type SystemContentBlock } from '../../core/index';
import { describeValue } from '../../util/describe-value';
import { isObject } from '../../util/is-object';
import { readFields, readPart, type AgentInput, type AgentOptions } from './agent-options';
import { checkMessages } from '../values/checked-messages';
import { invalid } from '../errors';
import { frozenCopy, frozenRecordCopy, NONE } from '../values/freeze';
import type { Message } from '../types/message';
import type { Model } from '../types/model';
import type { Tool, ToolChoice, ToolSpec } from '../types/tool';
import type { Conversation } from './run-state';
import { readSnapshot } from '../session/snapshot';
import type { AgentSession, SessionStore } from '../types/snapshot';
import type { AgentParent } from '../types/view';
import { isNonEmptyString, isRecord } from '../values/value-shapes';

/** What `new Agent()` keeps of its options: each read once, checked, and copied. */
export interface AgentSetup {
  /** The model. */
  readonly model: Model;
  /** The tools by name. */
  readonly tools: ReadonlyMap<string, Tool>;
  /** Copies of the tools' specs, frozen. */
  readonly toolSpecs: readonly ToolSpec[];
  /** The system prompt as frozen blocks, if one was given. */
  readonly systemPrompt: readonly SystemContentBlock[] | undefined;
  /** The tool choice (a frozen copy), if one was given. */
  readonly toolChoice: ToolChoice | undefined;
  /** The registry, if one was given. */
  readonly registry: MiddlewareRegistry | undefined;
  /** The initial conversation, frozen. */
  readonly messages: readonly Message[];
  /** The initial model state, frozen. */
  readonly modelState: Record<string, unknown>;
  /** The agent's name. */
  readonly name: string;
  /** The session it saves to, if any. */
  readonly session: AgentSession | undefined;
  /** The state restored from a snapshot, if one was given. */
  readonly restored: Conversation | undefined;
  /** Whether inherited tool contributions join the tool list. */
  readonly inheritTools: boolean;
  /** The agent and tool call a sub-agent works for, frozen. */
  readonly parent: AgentParent | undefined;
  /** The most turns a run makes. */
  readonly maxTurns: number;
}

/**
 * The turn limit of an agent without `options.maxTurns` (MW-143): the AI SDK's
 * default step count for its agents (a step being one model call and its tool
 * calls, as a turn is). LangGraph's default recursion limit, 25 graph steps,
 * allows about 12 turns, a model node and a tools node spending two a turn.
 */
export const DEFAULT_MAX_TURNS = 20;

/**
 * Reads, checks and copies the options of `new Agent()`: each option the
 * agent cannot use is reported now rather than as a TypeError in the middle of a run.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` naming the option (and the part of it that cannot be copied).
 */
export function readAgentOptions(options: AgentOptions): AgentSetup {
  const needsModel = 'new Agent() needs { model } where model.stream(request, options) returns an async iterable of stream events';
  if (!isObject(options)) throw invalid(`${needsModel}; got ${describeValue(options)}`);
  const given = readFields(
    options,
    [
      'model',
      'tools',
      'systemPrompt',
      'registry',
      'modelState',
      'messages',
      'toolChoice',
      'name',
      'session',
      'snapshot',
      'inheritTools',
      'parent',
      'maxTurns',
    ],
    'options',
  );
  const {
    model,
    tools,
    systemPrompt,
    registry,
    modelState,
    messages,
    toolChoice,
    name,
    session,
    snapshot,
    inheritTools,
    parent,
    maxTurns,
  } = given;
  if (inheritTools !== undefined && typeof inheritTools !== 'boolean')
    throw invalid(`options.inheritTools must be a boolean, got ${describeValue(inheritTools)}`);
  if (maxTurns !== undefined && !(maxTurns === Infinity || (Number.isInteger(maxTurns) && (maxTurns as number) > 0)))
    throw invalid(
      `options.maxTurns must be a positive integer (the most turns a run makes) or Infinity (no limit), got ${describeValue(maxTurns)}`,
    );
  if (snapshot !== undefined && (messages !== undefined || modelState !== undefined))
    throw invalid(
      'give options.snapshot or options.messages and options.modelState, not both: a snapshot holds the history and the model state',
    );
  if (name !== undefined && !isNonEmptyString(name)) throw invalid(`options.name must be a non-empty string, got ${describeValue(name)}`);
  if (!(isObject(model) || typeof model === 'function') || typeof readPart(model, 'stream', 'options.model') !== 'function')
    throw invalid(`${needsModel}; got model ${describeValue(model)}`);
  if (tools !== undefined && !Array.isArray(tools)) throw invalid(`options.tools must be an array of tools, got ${describeValue(tools)}`);
  const prompt = frozenCopy(systemPrompt, 'options.systemPrompt');
  if (prompt !== undefined && typeof prompt !== 'string' && !(Array.isArray(prompt) && prompt.every(isObject))) {
    throw invalid(`options.systemPrompt must be a string or an array of blocks ({ text } or { cachePoint }), got ${describeValue(prompt)}`);
  }
  if (registry !== undefined && !(isObject(registry) && typeof readPart(registry, 'invoke', 'options.registry') === 'function')) {
    throw invalid(`options.registry must be a MiddlewareRegistry, got ${describeValue(registry)}`);
  }
  if (modelState !== undefined && !isRecord(modelState)) {
    throw invalid(`options.modelState must be a plain object, got ${describeValue(modelState)}`);
  }
  if (messages !== undefined && !Array.isArray(messages))
    throw invalid(`options.messages must be an array of messages { role, content }, got ${describeValue(messages)}`);
  const choice = frozenCopy(toolChoice, 'options.toolChoice');
  if (choice !== undefined && !isToolChoice(choice)) {
    throw invalid(`options.toolChoice must be { type: 'auto' }, { type: 'any' } or { type: 'tool', name }, got ${describeValue(choice)}`);
  }
  const copiedMessages = frozenCopy((messages ?? NONE) as readonly Message[], 'options.messages');
  const { byName, specs } = readTools((tools ?? []) as readonly unknown[]);
  return {
    model: model as Model,
    tools: byName,
    toolSpecs: specs,
    systemPrompt:
      prompt === undefined
        ? undefined
        : frozenCopy(toSystemBlocks(prompt as string | readonly SystemContentBlock[]), 'options.systemPrompt'),
    toolChoice: choice as ToolChoice | undefined,
    registry: registry as MiddlewareRegistry | undefined,
    messages: checkMessages(copiedMessages, (index) => `options.messages[${index}]`, 'options.messages must be an array of messages'),
    modelState: frozenRecordCopy(modelState ?? {}, 'options.modelState'),
    name: name ?? 'agent',
    session: session === undefined ? undefined : readSession(session),
    restored: snapshot === undefined ? undefined : readSnapshot(snapshot, 'options.snapshot'),
    inheritTools: inheritTools ?? true,
    parent: parent === undefined ? undefined : readParent(parent),
    maxTurns: (maxTurns as number | undefined) ?? DEFAULT_MAX_TURNS,
  };
}

/**
 * The `parent` of a sub-agent, each part read once (frozen).
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` unless it is `{ name, toolUseId }` with two non-empty strings.
 */
function readParent(parent: unknown): AgentParent {
  const parts = readFields(parent, ['name', 'toolUseId'], 'options.parent');
  if (parts === undefined || !isNonEmptyString(parts.name) || !isNonEmptyString(parts.toolUseId)) {
    throw invalid(
      `options.parent must be { name, toolUseId } (non-empty strings: the parent agent and its tool call), got ${describeValue(parent)}`,
    );
  }
  return Object.freeze({ name: parts.name, toolUseId: parts.toolUseId });
}

/** The tools by name, and frozen copies of their specs. */
function readTools(tools: readonly unknown[]): { byName: Map<string, Tool>; specs: readonly ToolSpec[] } {
  const byName = new Map<string, Tool>();
  const specs: ToolSpec[] = [];
  const length = readPart(tools, 'length', 'options.tools') as number;
  for (let index = 0; index < length; index++) {
    const tool = readPart(tools, index, 'options.tools');
    const root = `options.tools[${index}]`;
    const parts = readFields(tool, ['spec', 'run', 'needsApproval'], root);
    const spec = parts === undefined ? undefined : frozenCopy(parts.spec, `${root}.spec`);
    const name = isObject(spec) ? readPart(spec, 'name', `${root}.spec`) : undefined;
    if (parts === undefined || (parts.run !== undefined && typeof parts.run !== 'function') || typeof name !== 'string') {
      throw invalid(
        `every tool needs { spec: { name, description, inputSchema }, run(input, context) } (leave run out for an external tool, which the caller runs); got ${describeValue(tool)}`,
      );
    }
    const { needsApproval } = parts;
    if (needsApproval !== undefined && typeof needsApproval !== 'boolean' && typeof needsApproval !== 'function')
      throw invalid(
        `${root}.needsApproval must be a boolean or a function (input, context) => boolean, got ${describeValue(needsApproval)}`,
      );
    if (byName.has(name)) throw invalid(`two tools are named "${name}"; tool names must be unique because the model calls tools by name`);
    byName.set(name, tool as Tool);
    specs.push(spec as ToolSpec);
  }
  return { byName, specs: Object.freeze(specs) };
}

/**
 * The messages a run's input stands for, copied and frozen.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` for a malformed message, or input that cannot be copied.
 */
export function readInput(input: AgentInput): readonly Message[] {
  if (input === undefined) return NONE;
  // Made here, so frozen as it is made rather than copied.
  if (typeof input === 'string')
    return Object.freeze([Object.freeze({ role: 'user', content: Object.freeze([Object.freeze({ type: 'text', text: input })]) })]);
  const copy = frozenCopy(input, 'input');
  const many = Array.isArray(copy);
  const messages = many ? (copy as readonly Message[]) : Object.freeze([copy as Message]);
  return checkMessages(
    messages,
    (index) => (many ? `input[${index}]` : 'input'),
    'the input must be a string, a message or an array of messages',
  );
}

/**
 * A session `{ store, id }`, each part read once.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` unless `store` has `load` and `save` and `id` is a non-empty string.
 */
export function readSession(session: unknown): AgentSession {
  const parts = readFields(session, ['store', 'id'], 'options.session');
  const store = parts?.store;
  const methods = readFields(store, ['load', 'save'], 'options.session.store');
  if (parts === undefined || !isNonEmptyString(parts.id) || typeof methods?.load !== 'function' || typeof methods.save !== 'function') {
    throw invalid(
      `options.session must be { store: { load(id), save(id, snapshot) }, id: non-empty string }, got ${describeValue(session)}`,
    );
  }
  return Object.freeze({ store: store as SessionStore, id: parts.id });
}

/** True for one of the three tool-choice shapes. */
function isToolChoice(value: unknown): boolean {
  if (!isObject(value)) return false;
  const { type, name } = readFields(value, ['type', 'name'], 'options.toolChoice');
  return type === 'auto' || type === 'any' || (type === 'tool' && typeof name === 'string');
}
