/**
 * `subagent()`: a tool whose call delegates a task to a child agent
 * (MW-169, MW-170). The child runs on a child registry of the run, so the
 * parent's handlers and instrumentation apply to it; its usage is reported
 * under the tool call; cancelling the parent cancels it; its questions
 * become the parent's and its answers flow back.
 */
import type { Middleware } from '../../core/index';
import { invalidOption } from '../../middleware/errors';
import { checkOptionsObject } from '../../middleware/options';
import { named } from '../../middleware/named';
import { MiddlewareRegistry } from '../../core/index';
import type { SystemPrompt } from '../../core/index';
import type { Next, HandlerCall } from '../../core/index';
import { Agent } from '../loop/agent';
import type { AgentOptions } from '../setup/agent-options';
import { ToolsKey } from '../tools/agent-tools';
import type { Model, Usage } from '../types/model';
import type { AgentSnapshot } from '../types/snapshot';
import type { AgentResultEvent, ExecuteToolContext, ExecuteToolEvent, SubagentEvent } from '../types/stages';
import { EventRelay, relayRun } from './subagent-events';
import { ExecuteToolStage, isToolResult } from '../stages';
import type { Interrupt, JsonSchema, Tool, ToolRunContext } from '../types/tool';
import type { StopReason } from '../types/model';
import { defineTool, type ToolInputSchema } from '../tools/define-tool';
import { invalidToolInput } from '../tools/call-errors';
import { refuseUnknownOptions } from './known-options';
import { nestUnderToolCall } from '../tracing/agent-runs';
import { parseWithZod } from './lazy-zod';
import { addUsage, ZERO_USAGE } from '../setup/usage';
import { isObject } from '../../util/is-object';
import { ownEntry, setOwnEntry } from '../../util/own-entry';

/** Which of the parent's handlers the child runs with. */
export type SubagentInheritance =
  /** Every handler and instrumentation of the registry the parent's run uses (the child runs on a child of it). */
  | 'handlers'
  /** None: the child runs on a registry of its own, with `middleware` only. */
  | 'none';

/** What a call of the tool answers with: the child's final text, or {@link SubagentDetails} as a JSON block. */
export type SubagentResultShape = 'text' | 'details';

/** The answer of a call with `result: 'details'`. */
export interface SubagentDetails {
  /** The sub-agent's name. */
  readonly agent: string;
  /** The text of the child's final message (its text blocks joined). */
  readonly text: string;
  /** Why the child's run ended. */
  readonly stopReason: StopReason;
  /** The text read as JSON, when it is JSON text: the child's structured output. */
  readonly output?: unknown;
}

/** Options of {@link subagent}. */
export interface SubagentOptions<TInput = { task: string }> {
  /** The tool's name, and the child agent's. */
  readonly name: string;
  /** What the tool does, for the parent's model. */
  readonly description: string;
  /** The child's system prompt. */
  readonly systemPrompt?: SystemPrompt;
  /** The child's tools (the parent's are not passed on). */
  readonly tools?: readonly Tool[];
  /** The child's model. */
  readonly model: Model;
  /** Which of the parent's handlers the child runs with. Default `'handlers'`. */
  readonly inherit?: SubagentInheritance;
  /** Bundles registered on the child's registry only (their tools are the child's). */
  readonly middleware?: readonly Middleware[];
  /** The zod schema (zod 4.2 or later) of the tool's input, instead of `{ task }`; the model sees its JSON Schema. */
  readonly input?: ToolInputSchema<TInput>;
  /** The child's input made of the parsed input. Default: its `task` when it is a string, else its JSON text. */
  readonly prompt?: (input: TInput) => string;
  /** What a call answers with. Default `'text'`. */
  readonly result?: SubagentResultShape;
  /** The child's events on the parent's stream, each as a `subagentEvent`, before the call's result. Default false. */
  readonly events?: boolean;
}

const KNOWN_OPTIONS = [
  'name',
  'description',
  'model',
  'systemPrompt',
  'tools',
  'inherit',
  'middleware',
  'input',
  'prompt',
  'result',
  'events',
];
const SHAPE = '{ name, description, model, systemPrompt?, tools?, inherit?, middleware?, input?, prompt?, result?, events? }';

/** The invocation-state key under which halted children wait for their answers, by parent tool-use id. */
export const SUBAGENT_STATE_KEY = 'staged-middleware.subagents';

/** The JSON Schema of the tool's input, as the model receives it. */
const INPUT_SCHEMA: JsonSchema = /*#__PURE__*/ Object.freeze({
  type: 'object',
  properties: { task: { type: 'string', minLength: 1, description: 'The task, with everything the sub-agent needs to know to do it.' } },
  required: ['task'],
  additionalProperties: false,
});

/** A child halted on questions, as the parent's invocation state keeps it until they are answered. */
interface WaitingChild {
  /** The child's snapshot. */
  readonly snapshot: AgentSnapshot;
  /** Token counts of the child's runs so far. */
  readonly usage: Usage;
}

/** The answer of a child run: its final text and stop reason, and every token it spent. */
interface ChildOutcome {
  readonly text: string;
  readonly stopReason: StopReason;
  readonly usage: Usage;
}

/**
 * A bundle named `subagent:<name>` contributing the tool `name` (input `{
 * task }`, or what `input` describes) and an ExecuteToolStage Wrap handler
 * `subagent` that runs each of its calls as a run of a child `Agent` (named
 * `name`, its view's `parent` naming the parent agent and the tool call).
 * The tool result is the text of the child's last message (with `result:
 * 'details'`, a JSON block with the text, the child's stop reason and its
 * structured output) and carries the child's usage (its `usage` plus its
 * `middlewareUsage`), which the parent reports under the tool's name.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`handler: 'subagent'`) at once for bad or unknown options.
 * @example
 * ```ts
 * registry.use(subagent({ name: 'forecaster', description: 'Answers questions about the weather.', model, tools: [weather] }));
 * ```
 */
export function subagent<TInput = { task: string }>(options: SubagentOptions<TInput>): Middleware {
  checkOptionsObject('subagent', options, SHAPE);
  refuseUnknownOptions('subagent', options, KNOWN_OPTIONS, SHAPE);
  const {
    name,
    description,
    model,
    systemPrompt,
    tools = [],
    inherit = 'handlers',
    middleware = [],
    input,
    prompt,
    result: resultShape = 'text',
    events = false,
  } = options;
  if (typeof name !== 'string' || name.length === 0) throw invalidOption('subagent', 'options.name must be a non-empty string', name);
  if (typeof description !== 'string') throw invalidOption('subagent', 'options.description must be a string', description);
  if (!isObject(model) || typeof model.stream !== 'function')
    throw invalidOption('subagent', 'options.model must be a model with stream()', model);
  if (!Array.isArray(tools)) throw invalidOption('subagent', 'options.tools must be an array of tools', tools);
  if (!(['handlers', 'none'] as unknown[]).includes(inherit))
    throw invalidOption('subagent', "options.inherit must be 'handlers' or 'none'", inherit);
  if (!Array.isArray(middleware)) throw invalidOption('subagent', 'options.middleware must be an array of bundles', middleware);
  const schema = input as Partial<ToolInputSchema<TInput>> | undefined;
  if (schema !== undefined && (typeof schema.toJSONSchema !== 'function' || typeof schema.safeParseAsync !== 'function'))
    throw invalidOption('subagent', 'options.input must be a zod 4 schema with toJSONSchema() and safeParseAsync()', input);
  if (prompt !== undefined && typeof prompt !== 'function') throw invalidOption('subagent', 'options.prompt must be a function', prompt);
  if (!(['text', 'details'] as unknown[]).includes(resultShape))
    throw invalidOption('subagent', "options.result must be 'text' or 'details'", resultShape);
  if (typeof events !== 'boolean') throw invalidOption('subagent', 'options.events must be a boolean', events);

  const unreachable = (): never => {
    throw new Error(
      `tool "${name}" runs a sub-agent through the "subagent" handler of its bundle, which was not in the chain of this call`,
    );
  };
  const tool: Tool =
    input === undefined
      ? { spec: { name, description, inputSchema: INPUT_SCHEMA }, run: unreachable }
      : { spec: defineTool({ name, description, input, run: unreachable }).spec, run: unreachable };

  /** The child's input: the task, or what `prompt` makes of the input `input` parsed. */
  async function childInput(value: unknown): Promise<string> {
    if (input === undefined) {
      const { task } = await parseWithZod<{ task: string }>(
        value,
        (z) => z.strictObject({ task: z.string().min(1) }),
        'the input must be { task: non-empty string }',
      );
      return prompt === undefined ? task : promptText(prompt({ task } as TInput));
    }
    const parsed = await input.safeParseAsync(value);
    if (!parsed.success) throw invalidToolInput(name, parsed.error);
    if (prompt !== undefined) return promptText(prompt(parsed.data));
    const task = isObject(parsed.data) ? ownEntry(parsed.data, 'task') : undefined;
    return typeof task === 'string' ? task : JSON.stringify(parsed.data);
  }

  /** Runs the child for one call, through its halts, and returns its answer; an unanswered question halts the parent. */
  async function delegate(
    value: unknown,
    run: ToolRunContext,
    context: ExecuteToolContext,
    relay: EventRelay | undefined,
  ): Promise<ChildOutcome> {
    const task = await childInput(value);
    const waiting = waitingChildren(run.invocationState);
    const key = run.toolUse.toolUseId;
    const registry = inherit === 'handlers' && context.childRegistry !== undefined ? context.childRegistry() : new MiddlewareRegistry();
    for (const bundle of middleware) registry.use(bundle);
    const agentOptions: AgentOptions = {
      name,
      model,
      tools,
      registry,
      inheritTools: false,
      parent: { name: context.agent?.name ?? 'agent', toolUseId: key },
      ...(systemPrompt === undefined ? {} : { systemPrompt }),
    };
    // Keyed by the model's tool-use ids, which may be any string (`__proto__` included).
    const saved = ownEntry(waiting, key) as WaitingChild | undefined;
    let usage = saved?.usage ?? ZERO_USAGE;
    let child: Agent;
    let result: AgentResultEvent;
    if (saved === undefined) {
      child = new Agent(agentOptions);
      // Linked to the parent's tool call, so tracing nests the child's run under it without a context manager.
      const childState: Record<string, unknown> = {};
      nestUnderToolCall(childState, context.toolUse);
      const options = { signal: run.signal, invocationState: childState };
      result = relay === undefined ? await child.invoke(task, options) : await relayRun(child.stream(task, options), relay);
    } else {
      child = new Agent({ ...agentOptions, snapshot: saved.snapshot });
      result = await child.resume(answers(run, child.pendingInterrupts), { signal: run.signal });
    }
    for (;;) {
      usage = addUsage(usage, childUsage(result));
      if (result.stopReason === 'cancelled')
        throw run.signal.aborted ? run.signal.reason : new Error(`the run of sub-agent "${name}" was cancelled`);
      if (result.stopReason !== 'interrupt') break;
      // Kept where the parent's snapshot keeps it, so the answer may come in another process.
      setOwnEntry(waiting, key, { snapshot: child.snapshot(), usage });
      result = await child.resume(answers(run, result.interrupts), { signal: run.signal });
    }
    delete waiting[key];
    const text = (result.message?.content ?? []).map((block) => (block.type === 'text' ? block.text : '')).join('');
    return { text, stopReason: result.stopReason, usage };
  }

  /** The parent's answers to the child's questions: each asked as `<name>:<child id>`; one without an answer halts the parent. */
  function answers(run: ToolRunContext, interrupts: readonly Interrupt[]): Record<string, unknown> {
    const answered = run.interrupt(interrupts.map((interrupt) => ({ name: `${name}:${interrupt.id}`, reason: interrupt.reason })));
    return Object.fromEntries(interrupts.map((interrupt, index) => [interrupt.id, answered[index]?.response]));
  }

  const handler = async function* (
    context: ExecuteToolContext,
    next: Next<ExecuteToolContext, ExecuteToolEvent>,
    _run: HandlerCall,
  ): AsyncGenerator<ExecuteToolEvent, void, undefined> {
    if (context.tool !== tool) {
      yield* next();
      return;
    }
    let usage: Usage | undefined;
    const relay = events ? new EventRelay() : undefined;
    const bound: Tool = {
      spec: tool.spec,
      run: async (value, run) => {
        const outcome = await delegate(value, run, context, relay);
        usage = outcome.usage;
        return resultShape === 'text' ? outcome.text : details(name, outcome);
      },
    };
    const inner = next({ ...context, tool: bound });
    const { toolUseId } = context.toolUse;
    const merged =
      relay === undefined
        ? inner
        : relay.merge(inner, (event): SubagentEvent => Object.freeze({ type: 'subagentEvent', agent: name, toolUseId, event }));
    let last: ExecuteToolEvent | undefined;
    for await (const event of merged) {
      if (event.type === 'subagentEvent') {
        // Never the last event: passed on at once, so the caller sees the child's events while it runs.
        if (last !== undefined) yield last;
        last = undefined;
        yield event;
        continue;
      }
      if (last !== undefined) yield last;
      last = event;
    }
    if (last === undefined) return;
    yield usage === undefined || !isToolResult(last) ? last : Object.freeze({ ...last, usage });
  };

  return {
    name: `subagent:${name}`,
    setup(registrar) {
      registrar.provide(ToolsKey, tool);
      registrar.add(ExecuteToolStage.Wrap, named('subagent', handler));
    },
  };
}

/** What `prompt` returned, checked: the child's input is a string. */
function promptText(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw new Error('options.prompt of the sub-agent must return a non-empty string');
  return value;
}

/** The answer of a call with `result: 'details'` (MW-337). */
function details(agent: string, outcome: ChildOutcome): SubagentDetails {
  let output: unknown;
  try {
    // Model output: JSON.parse keeps a `__proto__` key as an own property, and the loop copies the result as outside data.
    output = JSON.parse(outcome.text);
  } catch {
    return { agent, text: outcome.text, stopReason: outcome.stopReason };
  }
  return { agent, text: outcome.text, stopReason: outcome.stopReason, output };
}

/** The children waiting for answers, in the invocation state (created on first use). */
function waitingChildren(invocationState: Record<string, unknown>): Record<string, unknown> {
  const existing = invocationState[SUBAGENT_STATE_KEY];
  if (typeof existing === 'object' && existing !== null && !Array.isArray(existing)) return existing as Record<string, unknown>;
  const created: Record<string, unknown> = {};
  invocationState[SUBAGENT_STATE_KEY] = created;
  return created;
}

/** Every token a child run spent: its own calls and its middleware's. */
function childUsage(result: AgentResultEvent): Usage {
  let total = result.usage;
  for (const usage of Object.values(result.middlewareUsage ?? {})) total = addUsage(total, usage);
  return total;
}
