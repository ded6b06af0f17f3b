/**
 * The errors of calling the model and tools: a model or tool the terminal
 * cannot call, a tool definition or input `defineTool` refuses, a tool use or
 * tool value a result cannot carry, a tool result's usage. Their codes are in
 * the agent kit's table (`errors.ts`) or the core's (`core/errors.ts`).
 *
 * @packageDocumentation
 */
import { MiddlewareError } from '../../core/index';
import { describeValue } from '../../util/describe-value';
import { ExecuteToolStage, InvokeModelStage } from '../stages';
import { pathText } from '../values/value-walk';

/** The error of a tool value that JSON cannot carry, given to `toResultContent`. */
export function notJson(problem: string): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: ExecuteToolStage.name,
    message: `toResultContent(value): the value is not JSON: ${problem}.`,
  });
}

/** The error of a model whose `stream` is not a method returning an async iterable, raised when it is called. */
export function invalidModelStream(stream: unknown, returned?: { readonly value: unknown; readonly isPromise: boolean }): MiddlewareError {
  const problem =
    returned === undefined
      ? `the model's stream must be a method stream(request, options), got ${describeValue(stream)}`
      : `the model's stream() returned ${describeValue(returned.value)}, not an async iterable of stream events`;
  const hint =
    returned?.isPromise === true
      ? 'An async method returns a promise: write it as an async generator method, `async *stream(request, options) { yield event }`'
      : 'Write it as an async generator method, `async *stream(request, options) { yield event }`';
  return invalidCallee(InvokeModelStage.name, `InvokeModelStage: ${problem}. ${hint}.`);
}

/** The error of a tool whose `run` is not a function when the agent calls it. */
export function invalidToolRun(name: string, run: unknown): MiddlewareError {
  return invalidCallee(
    ExecuteToolStage.name,
    `ExecuteToolStage: tool "${name}" has no run function when it is called (run is ${describeValue(run)}); a tool needs run(input, context) returning its result or a promise of it, or no run at all for an external tool the caller runs.`,
  );
}

/** The error of an InvokeModelStage context whose system prompt (or a block of it, `part`) is not what a model takes (MW-109). */
export function invalidSystemPrompt(part: string, value: unknown): MiddlewareError {
  const expected =
    part === 'systemPrompt' ? 'an array of system blocks ({ text } or { cachePoint })' : 'a block ({ text } or { cachePoint })';
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: InvokeModelStage.name,
    phase: 'terminal',
    message: `InvokeModelStage: the context's ${part} must be ${expected}, got ${describeValue(value)}. A handler that sets the prompt puts blocks there, [{ text: '...' }] (toSystemBlocks(prompt) makes them of a string), so the handlers after it can add blocks to it.`,
  });
}

/** A model or tool the terminal cannot call, reported on the terminal. */
function invalidCallee(stage: string, message: string): MiddlewareError {
  return new MiddlewareError({ code: 'ERR_INVALID_HANDLER', stage, phase: 'terminal', handler: 'terminal', message });
}

/** The error of `errorResult(toolUse, ...)` given no tool use with a string id and name (MW-183). */
export function invalidToolUseReference(toolUse: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: ExecuteToolStage.name,
    message: `errorResult(toolUse, text) needs the tool use it answers, { toolUseId, name } (pass context.toolUse), got ${describeValue(toolUse)}: a tool result carries the tool's name, which provider APIs send beside the id.`,
  });
}

/** The error of a `defineTool` definition it cannot make a tool of (MW-185). */
export function invalidToolDefinition(name: string | undefined, problem: string, cause?: unknown): MiddlewareError {
  const which = name === undefined ? 'defineTool()' : `defineTool({ name: ${JSON.stringify(name)} })`;
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: ExecuteToolStage.name,
    message: `${which}: ${problem}.`,
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * The error of a call whose input the schema rejected (MW-185): its message
 * is what the model reads in the error result, one `<path>: <message>` per issue.
 */
export function invalidToolInput(
  name: string,
  error: { readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[] },
): MiddlewareError {
  const issues = error.issues.map((issue) => `${pathText('input', issue.path.map(pathStep))}: ${issue.message}`).join('; ');
  return new MiddlewareError({
    code: 'ERR_TOOL_INPUT_INVALID',
    stage: ExecuteToolStage.name,
    phase: 'terminal',
    message: `The input of tool "${name}" does not match its schema: ${issues}. Call the tool again with input that matches its input schema.`,
    cause: error,
  });
}

/** A step of an issue's path as a path text shows it (a symbol key by its description). */
function pathStep(key: PropertyKey): string | number {
  return typeof key === 'symbol' ? (key.description ?? 'Symbol()') : key;
}

/** The error of a tool result whose `usage` is not three numbers (MW-166). */
export function invalidToolUsage(tool: string, usage: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: ExecuteToolStage.name,
    message: `ExecuteToolStage: the result of tool "${tool}" reports usage ${describeValue(usage)}; usage must be { inputTokens, outputTokens, totalTokens } (numbers), or left out.`,
  });
}

/** The error of `namedToolResult` given something other than a result block and a tool use with a name (MW-312). */
export function invalidNamedResult(problem: string, value: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: ExecuteToolStage.name,
    message: `namedToolResult(toolResult, toolUse): ${problem}, got ${describeValue(value)}.`,
  });
}

/** The error of parts `callTools` cannot run (MW-326). */
export function invalidToolCalls(problem: string, value: unknown): MiddlewareError {
  return new MiddlewareError({
    code: 'ERR_INVALID_OPTIONS',
    stage: ExecuteToolStage.name,
    message: `callTools(registry, parts): ${problem}, got ${describeValue(value)}.`,
  });
}
