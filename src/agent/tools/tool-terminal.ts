import type { TerminalCall } from '../../core/index';
import { AbortRace } from './abort-race';
import { invalidToolRun, invalidToolUseReference, notJson } from './call-errors';
import { frozenCopy } from '../values/freeze';
import { InterruptSignal } from '../session/interrupts';
import { toJsonValue } from '../values/json-value';
import type { JsonBlock, TextBlock } from '../types/message';
import type { ExecuteToolContext, ToolResultEvent } from '../types/stages';
import type { Tool } from '../types/tool';
import { thrownText } from '../values/value-walk';
import { isObject } from '../../util/is-object';
import { ALL_DECISIONS, decideApproval } from './approval';

/** The tool use a result answers, as the ExecuteToolStage context's `toolUse` gives it. */
export interface ToolUseReference {
  /** The tool use's id. */
  readonly toolUseId: string;
  /** The tool's name. */
  readonly name: string;
}

/**
 * A tool result event answering `toolUse` (the context's `toolUse`, whose id
 * and name the result carries) with status `'error'` and one text block
 * (frozen; `error`, when given, is kept as it is).
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when `toolUse` has no string `toolUseId` and `name`
 *   (a tool-use id alone, say: pass `context.toolUse`).
 * @example
 * ```ts
 * registry.add(ExecuteToolStage.Wrap, async function* blockDeletes(context, next) {
 *   if (context.toolUse.name === 'delete') yield errorResult(context.toolUse, 'Deleting is not allowed.');
 *   else yield* next();
 * });
 * ```
 */
export function errorResult(toolUse: ToolUseReference, text: string, error?: unknown): ToolResultEvent {
  const { toolUseId, name } = (isObject(toolUse) ? toolUse : {}) as Partial<ToolUseReference>;
  if (typeof toolUseId !== 'string' || typeof name !== 'string') throw invalidToolUseReference(toolUse);
  return failure({ toolUseId, name }, text, error === undefined ? undefined : { value: error });
}

/**
 * The result of a tool call that threw `error` (frozen): `Tool "<name>" failed: <message>`,
 * with `error` kept as it is (MW-112), whatever was thrown (`undefined` included).
 */
export function toolFailure(toolUse: ToolUseReference, error: unknown): ToolResultEvent {
  return failure(toolUse, `Tool "${toolUse.name}" failed: ${thrownText(error)}`, { value: error });
}

/** An error result; `thrown`, when given, is kept as `error` (even a thrown `undefined`). */
function failure(toolUse: ToolUseReference, text: string, thrown: { readonly value: unknown } | undefined): ToolResultEvent {
  const toolResult = frozenCopy({
    type: 'toolResult',
    toolUseId: toolUse.toolUseId,
    name: toolUse.name,
    status: 'error',
    content: [{ type: 'text', text }],
  } as const);
  return Object.freeze(thrown === undefined ? { type: 'toolResult', toolResult } : { type: 'toolResult', toolResult, error: thrown.value });
}

/**
 * How a tool's return value is sent back (frozen): a string as text, anything
 * else as JSON, in the form `JSON.parse(JSON.stringify(value))` gives it (`null` for `undefined`).
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` when the value cannot be carried as JSON (a cycle, a BigInt, a
 *   function, a getter or `toJSON()` that throws), naming the part.
 * @example
 * ```ts
 * toResultContent({ celsius: 21 }); // [{ type: 'json', json: { celsius: 21 } }]
 * ```
 */
export function toResultContent(value: unknown): readonly (TextBlock | JsonBlock)[] {
  const content = resultContent(value);
  if (typeof content === 'string') {
    throw notJson(content);
  }
  return content;
}

/** The content of a tool's return value, or the problem that keeps it from being JSON. */
function resultContent(value: unknown): readonly (TextBlock | JsonBlock)[] | string {
  if (typeof value === 'string') return Object.freeze([Object.freeze({ type: 'text', text: value } as const)]);
  const conversion = toJsonValue(value);
  if (!conversion.ok) return conversion.problem;
  return Object.freeze([Object.freeze({ type: 'json', json: conversion.json } as const)]);
}

/**
 * The terminal of ExecuteToolStage: runs the tool with the call's signal and
 * yields its result (frozen), which carries the tool use's id and name. An
 * unknown tool (`tool` undefined), a tool that throws and a value that is not
 * JSON all end as error results (a thrown
 * value is kept in `error`), so the model hears about the failure and
 * middleware can inspect it. An {@link InterruptSignal} is not a failure: it
 * passes through to halt the agent. An external tool (no `run`) asks
 * `interrupt({ name: EXTERNAL_TOOL })` and answers with the response the
 * caller resumes with. A tool with `needsApproval` asks first (MW-287) and
 * runs with the input the answer gives, or answers with the rejection. When the signal aborts while the tool's promise is
 * pending, the terminal stops waiting at once and throws the signal's
 * reason; whatever the tool does afterwards is ignored.
 *
 * @throws MiddlewareError `ERR_INVALID_HANDLER` when `tool.run` is not a function.
 * @example
 * ```ts
 * for await (const event of registry.invoke(ExecuteToolStage, toolContext, toolTerminal)) console.log(event);
 * ```
 */
export async function* toolTerminal(
  context: ExecuteToolContext,
  run: TerminalCall<unknown>,
): AsyncGenerator<ToolResultEvent, void, undefined> {
  const { tool, toolUse } = context;
  const { signal } = run;
  if (tool === undefined) {
    yield errorResult(toolUse, `Unknown tool "${toolUse.name}": the agent has no tool by that name.`);
    return;
  }
  const needsApproval = (tool as { needsApproval?: unknown }).needsApproval;
  let input = toolUse.input;
  if (needsApproval !== undefined) {
    const approval = await decideApproval(context, { when: needsApproval as Tool['needsApproval'] & {}, decisions: ALL_DECISIONS });
    if (!approval.run) {
      yield errorResult(toolUse, approval.message);
      return;
    }
    input = approval.input;
  }
  const runTool = (tool as { run?: unknown }).run;
  if (runTool === undefined) {
    yield valueResult(
      toolUse,
      context.interrupt({ name: EXTERNAL_TOOL, reason: Object.freeze({ type: 'toolUse', ...toolUse, input } as const) }).response,
    );
    return;
  }
  if (typeof runTool !== 'function') throw invalidToolRun(toolUse.name, runTool);
  if (signal.aborted) throw signal.reason;
  const race = new AbortRace(signal);
  let value: unknown;
  try {
    const runContext = Object.freeze({
      toolUse: Object.freeze({ type: 'toolUse', ...toolUse, input } as const),
      signal,
      invocationState: context.invocationState,
      interrupt: context.interrupt,
      ...(typeof context.idempotencyKey === 'string' ? { idempotencyKey: context.idempotencyKey } : {}),
    });
    value = await race.wait(Promise.resolve((runTool as Tool['run'] & {}).call(tool, input, runContext)));
  } catch (error) {
    // A cancelled call has no result: what the tool threw then is not an answer for the model.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- signal.aborted changes while this awaits, which TypeScript's narrowing from before the await does not see
    if (signal.aborted || InterruptSignal.isInstance(error)) throw error;
    yield toolFailure(toolUse, error);
    return;
  } finally {
    race.dispose();
  }
  yield valueResult(toolUse, value);
}

/**
 * The name of the interrupt an external tool's call halts on (MW-135): the
 * caller runs the tool and resumes with `{ [interrupt.id]: value }`.
 *
 * @example
 * ```ts
 * const result = await agent.invoke('Book a table for two');
 * const calls = result.interrupts.filter((interrupt) => interrupt.name === EXTERNAL_TOOL);
 * ```
 */
export const EXTERNAL_TOOL = 'externalTool';

/**
 * The result of a call whose tool returned `value` (frozen): its content, or an error result when it is not JSON.
 * The AI SDK's tool wrapper answers its calls with it too.
 */
export function valueResult(toolUse: ExecuteToolContext['toolUse'], value: unknown): ToolResultEvent {
  const content = resultContent(value);
  if (typeof content === 'string')
    return failure(toolUse, `Tool "${toolUse.name}" returned a value that is not JSON: ${content}`, undefined);
  return Object.freeze({
    type: 'toolResult',
    toolResult: Object.freeze({
      type: 'toolResult',
      toolUseId: toolUse.toolUseId,
      name: toolUse.name,
      status: 'success',
      content,
    } as const),
  });
}
