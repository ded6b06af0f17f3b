/**
 * `toolSelector()`: before each of the agent's model calls, a model call of
 * its own picks the tools the request needs from a long list, and the call
 * is offered only those (MW-283).
 */
import type { InputHandler } from '../../core/index';
import { MiddlewareError } from '../../core/index';
import { isObject } from '../../util/is-object';
import { invalidOption } from '../../middleware/errors';
import { checkOptionsObject, positiveInteger } from '../../middleware/options';
import { refuseUnknownOptions } from './known-options';
import type { Message } from '../types/message';
import type { Model } from '../types/model';
import type { InvokeModelContext } from '../types/stages';
import type { ToolSpec } from '../types/tool';
import { InvokeModelStage } from '../stages';

/** Options of {@link toolSelector}. */
export interface ToolSelectorOptions {
  /** The most tools it picks (those of `alwaysInclude` not counted); no cap when absent. */
  readonly maxTools?: number;
  /** Tools offered whether picked or not, and not listed to the selecting model. */
  readonly alwaysInclude?: readonly string[];
  /** The model that picks. Default: the agent's. */
  readonly model?: Model;
  /** The system prompt of the selection call. Default: a prompt asking for only the tools the request needs. */
  readonly instructions?: string;
}

/** The system prompt of the selection call unless `instructions` says otherwise. */
const DEFAULT_SELECTOR_INSTRUCTIONS =
  'You choose the tools an assistant needs to answer a request, from a list. Choose only tools the request needs.';

const KNOWN_OPTIONS = ['maxTools', 'alwaysInclude', 'model', 'instructions'];
const SHAPE = '{ maxTools?, alwaysInclude?, model?, instructions? }';

/**
 * An InvokeModelStage Input handler named `toolSelector` (LangChain's
 * `llmToolSelectorMiddleware`). Before each of the agent's own model calls
 * whose tools (those of `alwaysInclude` left out) are more than `maxTools`,
 * it asks a model, through the context's `invokeModel` (`caller:
 * 'toolSelector'`: not counted by `modelCallLimit`, its usage in
 * `middlewareUsage.toolSelector`), which tools the last request needs, and
 * gives the call only the tools whose names the reply holds (at most
 * `maxTools`, in the reply's order; other names are ignored) and those of
 * `alwaysInclude`, in the context's order.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`phase: 'register'`, `handler: 'toolSelector'`) at once for bad or
 *   unknown options; at the call (`stage: 'invokeModel'`, `phase: 'input'`) when the context has no `invokeModel`
 *   (a loop of your own gives one to `createModelContext`). An error of the selection call fails the call unchanged.
 * @example
 * ```ts
 * registry.add(InvokeModelStage.Input, toolSelector({ maxTools: 5, alwaysInclude: ['search'] }));
 * ```
 */
export function toolSelector(options: ToolSelectorOptions = {}): InputHandler<InvokeModelContext> {
  checkOptionsObject('toolSelector', options, SHAPE);
  refuseUnknownOptions('toolSelector', options, KNOWN_OPTIONS, SHAPE);
  const { alwaysInclude = [], model, instructions = DEFAULT_SELECTOR_INSTRUCTIONS } = options;
  const maxTools = options.maxTools === undefined ? undefined : positiveInteger('toolSelector', 'options.maxTools', options.maxTools);
  if (!Array.isArray(alwaysInclude) || !alwaysInclude.every((name) => typeof name === 'string'))
    throw invalidOption('toolSelector', 'options.alwaysInclude must be an array of tool names', alwaysInclude);
  if (model !== undefined && !(isObject(model) && typeof (model as { stream?: unknown }).stream === 'function'))
    throw invalidOption('toolSelector', 'options.model must be a model with stream()', model);
  if (typeof instructions !== 'string') throw invalidOption('toolSelector', 'options.instructions must be a string', instructions);
  const always = new Set(alwaysInclude);

  const handler: InputHandler<InvokeModelContext> = async function (context) {
    if (context.caller !== undefined) return context;
    const forced = context.toolChoice?.type === 'tool' ? context.toolChoice.name : undefined;
    const candidates = context.toolSpecs.filter((spec) => !always.has(spec.name) && spec.name !== forced);
    if (candidates.length === 0 || (maxTools !== undefined && candidates.length <= maxTools)) return context;
    if (context.invokeModel === undefined)
      throw new MiddlewareError({
        code: 'ERR_INVALID_OPTIONS',
        stage: InvokeModelStage.name,
        phase: 'input',
        handler: 'toolSelector',
        message:
          'toolSelector(): the context has no invokeModel to make its selection call with; the reference agent gives one, a loop of your own passes one to createModelContext.',
      });
    const result = await context.invokeModel({
      caller: 'toolSelector',
      messages: [{ role: 'user', content: [{ type: 'text', text: selectionRequest(context.messages, candidates, maxTools) }] }],
      systemPrompt: instructions,
      ...(model === undefined ? {} : { model }),
    });
    const reply = result.message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    const picked = new Set(namesIn(reply, candidates).slice(0, maxTools));
    const offered = context.toolSpecs.filter((spec) => picked.has(spec.name) || always.has(spec.name) || spec.name === forced);
    return { ...context, toolSpecs: Object.freeze(offered) };
  };
  // Named explicitly: a bundler renames a function whose name the module's scope already takes.
  return Object.defineProperty(handler, 'name', { value: 'toolSelector' });
}

/**
 * The selection call's user message: `Request: <text of the last user
 * message holding text>`, a blank line, `Tools:` and one `<name>:
 * <description>` line per candidate, a blank line, and what to reply.
 */
function selectionRequest(messages: readonly Message[], candidates: readonly ToolSpec[], maxTools: number | undefined): string {
  const cap = maxTools === undefined ? '' : `, at most ${maxTools}`;
  return [
    `Request: ${lastRequest(messages)}`,
    '',
    'Tools:',
    ...candidates.map((spec) => `${spec.name}: ${spec.description}`),
    '',
    `Reply with the names of the tools the request needs${cap}, one per line.`,
  ].join('\n');
}

/** The text blocks of the last user message that has one, joined with line breaks; empty without one. */
function lastRequest(messages: readonly Message[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as Message;
    if (message.role !== 'user') continue;
    const texts = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
    if (texts.length > 0) return texts.join('\n');
  }
  return '';
}

/**
 * The candidates' names the reply holds as whole words (no letter, digit,
 * `_` or `-` on either side), in the order of their first occurrence.
 */
function namesIn(reply: string, candidates: readonly ToolSpec[]): string[] {
  const found: { name: string; at: number }[] = [];
  for (const { name } of candidates) {
    if (name.length === 0) continue;
    for (let at = reply.indexOf(name); at !== -1; at = reply.indexOf(name, at + 1)) {
      if (!isNameCharacter(reply[at - 1]) && !isNameCharacter(reply[at + name.length])) {
        found.push({ name, at });
        break;
      }
    }
  }
  return found.sort((first, second) => first.at - second.at).map((entry) => entry.name);
}

/** True for a character that continues a tool name. */
function isNameCharacter(character: string | undefined): boolean {
  return character !== undefined && /[\p{L}\p{N}_-]/u.test(character);
}
