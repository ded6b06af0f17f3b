/**
 * `toolEmulator()`: for tests and prototypes, a model plays the tools that
 * are not implemented yet (MW-281), for every tool or a named few.
 */
import type { WrapHandler } from '../../core/index';
import { MiddlewareRegistry } from '../../core/index';
import { isObject } from '../../util/is-object';
import { invalidOption } from '../../middleware/errors';
import { checkOptionsObject } from '../../middleware/options';
import { refuseUnknownOptions } from './known-options';
import { jsonText } from '../values/json-value';
import { createModelContext } from '../session/history';
import { modelTerminal } from '../model/model-terminal';
import type { ToolResultBlock } from '../types/message';
import type { Model } from '../types/model';
import type { ExecuteToolContext, ExecuteToolEvent, ModelResultEvent, ToolResultEvent } from '../types/stages';
import { InvokeModelStage } from '../stages';

/** Options of {@link toolEmulator}. */
export interface ToolEmulatorOptions {
  /** The model that plays the tools. */
  readonly model: Model;
  /** The names of the tools it plays; every tool when absent. */
  readonly tools?: readonly string[];
  /** The system prompt of its calls. Default: a prompt asking for only what the tool would return. */
  readonly instructions?: string;
}

/** The system prompt of an emulation call unless `instructions` says otherwise. */
const DEFAULT_EMULATOR_INSTRUCTIONS =
  'You stand in for a tool that is not implemented, in a test. Reply with only what the tool would return for this call: plausible, consistent with its description and input, without commentary.';

const KNOWN_OPTIONS = ['model', 'tools', 'instructions'];
const SHAPE = '{ model, tools?, instructions? }';

/**
 * An ExecuteToolStage Wrap handler named `toolEmulator` (LangChain's
 * `LLMToolEmulator`): a call of a tool the agent has, named in `tools`
 * (every tool without it), is not run: `model` is asked, with the tool's
 * name, description, input schema and the call's input, what the tool
 * would return, and its reply's text is the tool's result (status
 * `success`), its usage the result's `usage` (reported in
 * `middlewareUsage` under the tool's name). Other calls pass through.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`phase: 'register'`, `handler: 'toolEmulator'`) at once for bad or
 *   unknown options. An error of the emulation call fails the tool call unchanged.
 * @example
 * ```ts
 * registry.add(ExecuteToolStage.Wrap, toolEmulator({ model, tools: ['book_flight'] }));
 * ```
 */
export function toolEmulator(options: ToolEmulatorOptions): WrapHandler<ExecuteToolContext, ExecuteToolEvent> {
  checkOptionsObject('toolEmulator', options, SHAPE);
  refuseUnknownOptions('toolEmulator', options, KNOWN_OPTIONS, SHAPE);
  const { model, tools, instructions = DEFAULT_EMULATOR_INSTRUCTIONS } = options;
  if (!isObject(model) || typeof (model as { stream?: unknown }).stream !== 'function')
    throw invalidOption('toolEmulator', 'options.model must be a model with stream()', model);
  if (
    tools !== undefined &&
    !(Array.isArray(tools) && tools.length > 0 && tools.every((name) => typeof name === 'string' && name.length > 0))
  )
    throw invalidOption('toolEmulator', 'options.tools must be a non-empty array of tool names, or absent for every tool', tools);
  if (typeof instructions !== 'string') throw invalidOption('toolEmulator', 'options.instructions must be a string', instructions);
  const emulated = tools === undefined ? undefined : new Set(tools);

  const handler: WrapHandler<ExecuteToolContext, ExecuteToolEvent> = async function* (context, next) {
    const { tool, toolUse } = context;
    if (tool === undefined || (emulated !== undefined && !emulated.has(toolUse.name))) {
      yield* next();
      return;
    }
    const request = createModelContext({
      model,
      messages: [{ role: 'user', content: [{ type: 'text', text: describeCall(tool.spec, toolUse.input) }] }],
      systemPrompt: instructions,
      toolSpecs: [],
      invocationState: context.invocationState,
      agent: context.agent,
      caller: 'toolEmulator',
    });
    // A registry of its own: the call stands in for the tool, which the ExecuteToolStage handlers around this one wrap.
    let last: unknown;
    for await (const event of new MiddlewareRegistry().invoke(InvokeModelStage, request, modelTerminal, { signal: context.signal }))
      last = event;
    const result = last as ModelResultEvent;
    const text = result.message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    const toolResult: ToolResultBlock = {
      type: 'toolResult',
      toolUseId: toolUse.toolUseId,
      name: toolUse.name,
      status: 'success',
      content: Object.freeze([Object.freeze({ type: 'text', text } as const)]),
    };
    const event: ToolResultEvent = { type: 'toolResult', toolResult: Object.freeze(toolResult), usage: result.usage };
    yield Object.freeze(event);
  };
  // Named explicitly: a bundler renames a function whose name the module's scope already takes.
  return Object.defineProperty(handler, 'name', { value: 'toolEmulator' });
}

/**
 * What the emulation call's user message says: `Tool: <name>`,
 * `Description: <description>`, `Input schema: <JSON>` and `Input: <JSON>`,
 * one a line.
 */
function describeCall(
  spec: { readonly name: string; readonly description: string; readonly inputSchema: unknown },
  input: unknown,
): string {
  return [
    `Tool: ${spec.name}`,
    `Description: ${spec.description}`,
    `Input schema: ${jsonText(spec.inputSchema)}`,
    `Input: ${jsonText(input)}`,
  ].join('\n');
}
