/**
 * ExecuteToolStage handlers around the Vercel AI SDK's tools (MW-304 –
 * MW-308): each call the AI SDK's own loop makes of a tool's `execute` is one
 * invoke of ExecuteToolStage, so guards, errors as answers, `retry`,
 * `timeout`, `tracing` and the registry's order apply to `streamText`,
 * `generateText` and `ToolLoopAgent` tool calls unchanged. The AI SDK reads
 * a result with status `'error'` as a tool error: the wrapped `execute`
 * rejects with it, and the model reads its text.
 */
import { MiddlewareError, type MiddlewareRegistry, type TerminalCall } from '../core/index';
import {
  ExecuteToolStage,
  InterruptSignal,
  TOOL_APPROVAL,
  createInterrupt,
  errorResult,
  interruptId,
  type ExecuteToolContext,
  type InterruptAnswer,
  type InterruptFunction,
  type InterruptRequest,
  type NeedsApproval,
  type Tool,
  type ToolResultEvent,
  type ToolRunContext,
  type ToolSpec,
} from '../agent/index';
import { AbortRace } from '../agent/tools/abort-race';
import { valueResult } from '../agent/tools/tool-terminal';
import { resultPartTexts } from '../agent/tools/tool-result-text';
import { isAbortSignal } from '../util/abort-signal';
import { isAsyncIterable } from '../util/async-iterable';
import { describeValue } from '../util/describe-value';
import { isObject } from '../util/is-object';
import { ownEntry, setOwnEntry } from '../util/own-entry';
import { aiSdkNeedsApproval, asks, readApproval, type AiSdkToolApproval } from './ai-sdk-tool-approval';
import { cannotHalt, invalidExecuteOptions, invalidMiddlewareOptions } from './errors';

const HANDLER = 'wrapAiSdkTools';

/**
 * A tool of the AI SDK (`Tool` of `ai` 6 and `ai` 7, `tool()`'s result), as
 * far as the wrapper reads it; every other key is kept as it is.
 */
export interface AiSdkTool {
  /** What the tool does, for the model: a string (ai 7 also takes a function of the tool's context). */
  readonly description?: unknown;
  /** The input schema: a zod schema, or the AI SDK's `jsonSchema()`. */
  readonly inputSchema?: unknown;
  /** Runs the tool; a tool without it is one the caller or the provider runs, kept as it is. */
  readonly execute?: ((input: never, options: never) => unknown) | undefined;
  /** The AI SDK's own approval setting of the tool. */
  readonly needsApproval?: unknown;
}

/** What the AI SDK gives a tool's `execute` (`ToolExecutionOptions`), read as outside data; every key is passed on. */
export interface AiSdkToolExecutionOptions {
  /** The id of the tool call, the ExecuteToolStage context's `toolUse.toolUseId`. */
  readonly toolCallId: string;
  /** Aborts the call: the invoke's signal. */
  readonly abortSignal?: AbortSignal | undefined;
  /** The messages, the context and every other option of the AI SDK. */
  readonly [key: string]: unknown;
}

/** Options of {@link wrapAiSdkTools}. */
export interface WrapAiSdkToolsOptions {
  /** The invocation state every call's context shares (by reference); a new empty object per call without it. */
  readonly invocationState?: Record<string, unknown>;
  /**
   * Human approval by tool name, as `approvalPolicy` takes it (MW-307): `true`, `false`, a predicate, or
   * `{ when? }`. It becomes the AI SDK's own `needsApproval` of the tool, which asks before `execute`
   * and is answered approve or deny; `decisions` other than `['approve', 'reject']` and a `description`
   * cannot be expressed and are refused.
   */
  readonly approval?: AiSdkToolApproval;
}

/** The tool's own return value, by the result event the terminal made of it. */
const OUTPUTS = new WeakMap<ToolResultEvent, { readonly value: unknown }>();

/**
 * The tool set with every tool's `execute` run through the ExecuteToolStage
 * handlers of `registry` (MW-304 – MW-308), for `streamText`, `generateText`
 * and `ToolLoopAgent` as they are. Each call is one invoke whose context
 * holds the call (`toolUse`: the tool's key, the AI SDK's `toolCallId`, the
 * input), the AI SDK's abort signal, and a `tool` whose `run` calls the
 * original `execute` with the AI SDK's options (`abortSignal` the invoke's).
 * What the loop receives:
 * - a result with status `'success'`: the tool's own value when no handler
 *   replaced the terminal's result, else the result's content (one text
 *   block as its text, one JSON block as its value, else the blocks);
 * - a result with status `'error'` (a guard's answer, `errorsAsAnswers`):
 *   a rejection with an `Error` named `ToolResultError` whose message is the
 *   result's text (the model reads it as the tool error) and whose
 *   `toolResult` is the block, `cause` the error the result kept;
 * - an error no handler answered: the same value, as the tool threw it.
 *
 * A tool whose `execute` returns an async iterable (preliminary results) is
 * read to its end inside the stage and answers with its last value, so
 * `retry` and `timeout` cover the whole stream; the preliminary values do not
 * reach the AI SDK. Tools without `execute` are kept as they are. The
 * AI SDK's loop cannot halt: `interrupt()` without a response rejects the
 * call with `ERR_AI_SDK_CANNOT_HALT`, and approval goes through
 * `options.approval`, the AI SDK's own `needsApproval`. Nothing of TurnStage
 * or the model state has a place in a tool call.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`phase: 'register'`, `handler: 'wrapAiSdkTools'`) when `registry` is no
 *   registry, `tools` is not an object of tools, or an option is invalid.
 * @example
 * ```ts
 * import { generateText, stepCountIs, tool } from 'ai';
 * import { z } from 'zod';
 * import { ExecuteToolStage, errorResult } from 'staged-middleware/agent';
 * declare const providerModel: Parameters<typeof generateText>[0]['model']; // openai('gpt-4.1'), say
 * registry.add(ExecuteToolStage.Wrap, async function* noDeletes(context, next) {
 *   if (context.toolUse.name === 'deleteFile') yield errorResult(context.toolUse, 'Deleting needs a human.');
 *   else yield* next();
 * });
 * const tools = wrapAiSdkTools(registry, {
 *   deleteFile: tool({ inputSchema: z.object({ path: z.string() }), execute: ({ path }) => `deleted ${path}` }),
 * });
 * const result = await generateText({ model: providerModel, tools, prompt: 'Tidy up', stopWhen: stepCountIs(3) });
 * ```
 */
export function wrapAiSdkTools<TTools extends Readonly<Record<string, AiSdkTool>>>(
  registry: MiddlewareRegistry,
  tools: TTools,
  options: WrapAiSdkToolsOptions = {},
): TTools {
  if (!isObject(registry) || typeof (registry as { invoke?: unknown }).invoke !== 'function')
    throw invalidMiddlewareOptions(`registry must be a MiddlewareRegistry, got ${describeValue(registry)}`, HANDLER);
  if (!isObject(tools) || Array.isArray(tools))
    throw invalidMiddlewareOptions(
      `tools must be the AI SDK's tool set, an object { [name]: tool(...) }, got ${describeValue(tools)}`,
      HANDLER,
    );
  if (!isObject(options))
    throw invalidMiddlewareOptions(`options must be { invocationState?, approval? }, got ${describeValue(options)}`, HANDLER);
  const { invocationState, approval } = options;
  if (invocationState !== undefined && !isObject(invocationState))
    throw invalidMiddlewareOptions(`options.invocationState must be an object, got ${describeValue(invocationState)}`, HANDLER);
  const stateOf = (): Record<string, unknown> => invocationState ?? {};
  const wrapped: Record<string, unknown> = {};
  // One walk checks and wraps every tool; approval, read after it, completes the calls it names.
  const calls = new Map<string, { call: ToolCall; copy: Record<string, unknown> }>();
  for (const name of Object.keys(tools)) {
    const entry = ownEntry(tools, name);
    if (!isObject(entry)) throw invalidMiddlewareOptions(`tools["${name}"] must be a tool, got ${describeValue(entry)}`, HANDLER);
    const original = entry as AiSdkTool;
    const { execute } = original;
    if (execute === undefined) {
      setOwnEntry(wrapped, name, original);
      continue;
    }
    if (typeof execute !== 'function')
      throw invalidMiddlewareOptions(`tools["${name}"].execute must be a function or absent, got ${describeValue(execute)}`, HANDLER);
    const call: ToolCall = { registry, name, original, spec: specOf(name, original), when: undefined, invocationState: stateOf };
    const copy: Record<string, unknown> = {
      ...original,
      execute: (input: unknown, executeOptions: unknown) => executeCall(call, input, executeOptions),
    };
    calls.set(name, { call, copy });
    setOwnEntry(wrapped, name, copy);
  }
  if (approval !== undefined) {
    for (const [name, when] of readApproval(approval, (name) => calls.get(name)?.call.original)) {
      const { call, copy } = calls.get(name) as { call: ToolCall; copy: Record<string, unknown> };
      call.when = when;
      copy.needsApproval = aiSdkNeedsApproval(name, when, stateOf);
    }
  }
  return Object.freeze(wrapped) as unknown as TTools;
}

/** What every call of one wrapped tool shares. */
interface ToolCall {
  readonly registry: MiddlewareRegistry;
  readonly name: string;
  readonly original: AiSdkTool;
  readonly spec: ToolSpec;
  /** The tool's approval, when `options.approval` names it (set once, before the tool set is returned). */
  when: NeedsApproval | undefined;
  readonly invocationState: () => Record<string, unknown>;
}

/** One call of a wrapped tool: one invoke of ExecuteToolStage (MW-305), its result read as the AI SDK reads a tool's (MW-306). */
async function executeCall(call: ToolCall, input: unknown, executeOptions: unknown): Promise<unknown> {
  const toolCallId = isObject(executeOptions) ? (executeOptions as { toolCallId?: unknown }).toolCallId : undefined;
  if (typeof toolCallId !== 'string') throw invalidExecuteOptions(call.name, executeOptions);
  const options = executeOptions as AiSdkToolExecutionOptions;
  const given = options.abortSignal;
  const signal = isAbortSignal(given) ? given : new AbortController().signal;
  const invocationState = call.invocationState();
  // The AI SDK runs execute only after its approval, so the approval a handler asks for here is given.
  const approved = call.when !== undefined && (await asks(call.name, call.when, input, toolCallId, invocationState));
  const halt: { refusal?: MiddlewareError } = {};
  const context: ExecuteToolContext = Object.freeze({
    tool: toolOf(call, options),
    toolUse: Object.freeze({ name: call.name, toolUseId: toolCallId, input }),
    invocationState,
    signal,
    interrupt: interruptOf(toolCallId, approved, (error) => (halt.refusal = error)),
  });
  let last: ToolResultEvent | undefined;
  try {
    for await (const event of call.registry.invoke(ExecuteToolStage, context, aiSdkToolTerminal, { signal }))
      if (event.type === 'toolResult') last = event;
  } catch (error) {
    throw halt.refusal ?? error;
  }
  // A refusal some handler made an answer of still fails the call: the question it asked was never put to anyone.
  if (halt.refusal !== undefined) throw halt.refusal;
  return outputOf(last as ToolResultEvent);
}

/** The tool of a call's context: its spec, and a `run` that calls the original `execute` with the AI SDK's options. */
function toolOf(call: ToolCall, options: AiSdkToolExecutionOptions): Tool {
  const { original } = call;
  return Object.freeze({
    spec: call.spec,
    run: (input: unknown, runContext: ToolRunContext): unknown =>
      (original.execute as (input: unknown, options: AiSdkToolExecutionOptions) => unknown).call(original, input, {
        ...options,
        abortSignal: runContext.signal,
      }),
  });
}

/** The spec of a tool: its key, its description, and its input schema as JSON Schema where the tool can tell (else `{}`). */
function specOf(name: string, tool: AiSdkTool): ToolSpec {
  const description = typeof tool.description === 'string' ? tool.description : '';
  // The schema is the tool's own object, left as it is (not frozen): the spec only points at it.
  return Object.freeze({ name, description, inputSchema: jsonSchemaOf(tool.inputSchema) });
}

/** The JSON Schema of an AI SDK input schema: `jsonSchema()`'s, a zod schema's `toJSONSchema()`, else `{}`. */
function jsonSchemaOf(schema: unknown): Readonly<Record<string, unknown>> {
  try {
    if (!isObject(schema)) return {};
    const declared = (schema as { jsonSchema?: unknown }).jsonSchema;
    if (isObject(declared)) return declared as Record<string, unknown>;
    const toJsonSchema = (schema as { toJSONSchema?: unknown }).toJSONSchema;
    if (typeof toJsonSchema === 'function') {
      const converted: unknown = (toJsonSchema as () => unknown).call(schema);
      if (isObject(converted)) return converted as Record<string, unknown>;
    }
  } catch {
    // A schema that cannot say its JSON Schema still validates for the AI SDK: the spec has none.
  }
  return {};
}

/**
 * The `interrupt()` of a call (MW-308): answered from a response given in
 * the request, or `approve` for the approval question of a call the AI SDK
 * approved; any other question rejects, since the AI SDK's loop cannot halt.
 */
function interruptOf(toolCallId: string, approved: boolean, refused: (error: MiddlewareError) => void): InterruptFunction {
  const stored = new Map<string, unknown>();
  if (approved) stored.set(interruptId(ExecuteToolStage.name, toolCallId, TOOL_APPROVAL), Object.freeze({ decision: 'approve' }));
  const ask = createInterrupt(ExecuteToolStage.name, toolCallId, stored);
  function interrupt(request: InterruptRequest): InterruptAnswer;
  function interrupt(requests: readonly InterruptRequest[]): readonly InterruptAnswer[];
  function interrupt(asked: InterruptRequest | readonly InterruptRequest[]): InterruptAnswer | readonly InterruptAnswer[] {
    try {
      return Array.isArray(asked) ? ask(asked as readonly InterruptRequest[]) : ask(asked as InterruptRequest);
    } catch (error) {
      if (!InterruptSignal.isInstance(error)) throw error;
      const refusal = cannotHalt(error.interrupts.map((question) => question.id));
      refused(refusal);
      throw refusal;
    }
  }
  return interrupt;
}

/**
 * The terminal: runs the context's tool with the call's signal (MW-305). A
 * throw passes through, so `retry` and `errorsAsAnswers` act on it; an async
 * iterable is read to its end, its last value the answer; the value is kept
 * with the result event it becomes, for the AI SDK's loop.
 */
async function* aiSdkToolTerminal(
  context: ExecuteToolContext,
  run: TerminalCall<unknown>,
): AsyncGenerator<ToolResultEvent, void, undefined> {
  const { tool, toolUse } = context;
  const runTool = (tool as { run?: unknown } | undefined)?.run;
  if (typeof runTool !== 'function') {
    yield errorResult(toolUse, `Unknown tool "${toolUse.name}": the tool set has no tool by that name that runs.`);
    return;
  }
  const { signal } = run;
  if (signal.aborted) throw signal.reason;
  const race = new AbortRace(signal);
  let value: unknown;
  try {
    const runContext: ToolRunContext = Object.freeze({
      toolUse: Object.freeze({ type: 'toolUse', ...toolUse } as const),
      signal,
      invocationState: context.invocationState,
      interrupt: context.interrupt,
    });
    value = await race.wait(
      Promise.resolve((runTool as (input: unknown, context: ToolRunContext) => unknown).call(tool, toolUse.input, runContext)),
    );
    if (isAsyncIterable(value)) value = await lastValue(value, race);
  } finally {
    race.dispose();
  }
  yield answer(toolUse, value);
}

/** The last value of an async iterable (undefined when it has none), each wait raced against the signal. */
async function lastValue(values: AsyncIterable<unknown>, race: AbortRace): Promise<unknown> {
  const iterator = values[Symbol.asyncIterator]();
  let last: unknown;
  try {
    for (let next = await race.wait(iterator.next()); next.done !== true; next = await race.wait(iterator.next())) last = next.value;
  } catch (error) {
    // Ends the tool's stream (an abort, say) without waiting on it: the tool may ignore the request.
    void Promise.resolve(iterator.return?.()).catch(() => undefined);
    throw error;
  }
  return last;
}

/** The result of a call whose tool returned `value` (frozen), the value kept with it; an error result when it is not JSON. */
function answer(toolUse: ExecuteToolContext['toolUse'], value: unknown): ToolResultEvent {
  const event = valueResult(toolUse, value);
  if (event.toolResult.status === 'success') OUTPUTS.set(event, { value });
  return event;
}

/** What the AI SDK's loop receives for the stage's result (MW-306). */
function outputOf(result: ToolResultEvent): unknown {
  const { toolResult } = result;
  if (toolResult.status === 'error') throw toolResultError(result);
  const kept = OUTPUTS.get(result);
  if (kept !== undefined) return kept.value;
  const [first] = toolResult.content;
  if (toolResult.content.length === 1 && first !== undefined) return first.type === 'text' ? first.text : first.json;
  return toolResult.content;
}

/** The rejection of a call answered with an error result: its text is what the model reads. */
function toolResultError(result: ToolResultEvent): Error {
  const { toolResult } = result;
  const text = resultPartTexts(toolResult.content).join('\n');
  const error = new Error(text, 'error' in result ? { cause: result.error } : undefined);
  error.name = 'ToolResultError';
  // ai 6 gives the model a tool error's message, ai 7 its toString(): both must be the answer's text alone.
  Object.defineProperty(error, 'toString', { value: () => text, writable: true, configurable: true });
  return Object.assign(error, { toolResult });
}
