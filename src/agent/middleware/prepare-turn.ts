/**
 * `prepareTurn()`: the model, the tools offered and the tool choice of each
 * of the agent's model calls, chosen per turn (the AI SDK's `prepareStep`),
 * as an InvokeModelStage Input handler (MW-294).
 */
import type { InputHandler } from '../../core/index';
import { describeValue } from '../../util/describe-value';
import { isObject } from '../../util/is-object';
import { invalidOption } from '../../middleware/errors';
import { MiddlewareError } from '../../core/index';
import type { Message } from '../types/message';
import type { Model } from '../types/model';
import type { InvokeModelContext } from '../types/stages';
import type { ToolChoice } from '../types/tool';
import { InvokeModelStage } from '../stages';

/** What a turn's model call changes; a field left out keeps the context's. */
export interface TurnPreparation {
  /** The model of this call. */
  readonly model?: Model;
  /** The names of the tools offered in this call: the context's tool specs, kept in their order, whose name is listed. */
  readonly activeTools?: readonly string[];
  /** How the model may call them in this call. */
  readonly toolChoice?: ToolChoice;
}

/** Chooses the preparation of one model call; `turn` counts the calls since the last user message, from 1. */
export type PrepareTurn = (
  context: InvokeModelContext,
  turn: number,
) => TurnPreparation | undefined | PromiseLike<TurnPreparation | undefined>;

/**
 * An InvokeModelStage Input handler named `prepareTurn` that, before each of
 * the agent's own model calls (a context without `caller`), calls
 * `prepare(context, turn)` and gives the call the context with what it
 * returned: `model` replaced, `toolSpecs` filtered to `activeTools`,
 * `toolChoice` replaced. `turn` is 1 plus the number of assistant messages
 * after the last user message that holds a block other than a tool result.
 * `undefined` changes nothing.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`phase: 'register'`, `handler: 'prepareTurn'`) when `prepare` is not
 *   a function; at the call (`stage: 'invokeModel'`), when it returns something other than `undefined` or an object
 *   whose `model` has `stream()`, whose `activeTools` is an array of strings and whose `toolChoice` is an object.
 * @example
 * ```ts
 * registry.add(InvokeModelStage.Input, prepareTurn((context, turn) => (turn === 1 ? { activeTools: ['search'], toolChoice: { type: 'any' } } : undefined)));
 * ```
 */
export function prepareTurn(prepare: PrepareTurn): InputHandler<InvokeModelContext> {
  if (typeof prepare !== 'function')
    throw invalidOption('prepareTurn', 'prepare must be a function (context, turn) => { model?, activeTools?, toolChoice? }', prepare);
  const handler: InputHandler<InvokeModelContext> = async function (context) {
    if (context.caller !== undefined) return context;
    const preparation: unknown = await prepare(context, turnOf(context.messages));
    if (preparation === undefined) return context;
    const { model, activeTools, toolChoice } = readPreparation(preparation);
    const next: { -readonly [K in keyof InvokeModelContext]: InvokeModelContext[K] } = { ...context };
    if (model !== undefined) next.model = model;
    if (activeTools !== undefined) next.toolSpecs = Object.freeze(context.toolSpecs.filter((spec) => activeTools.includes(spec.name)));
    if (toolChoice !== undefined) next.toolChoice = toolChoice;
    return next;
  };
  // Named explicitly: a bundler renames a function whose name the module's scope already takes.
  return Object.defineProperty(handler, 'name', { value: 'prepareTurn' });
}

/** The turn a model call makes: 1 plus the assistant messages since the last message a user wrote. */
function turnOf(messages: readonly Message[]): number {
  let turn = 1;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as Message;
    if (message.role === 'assistant') turn++;
    else if (message.content.some((block) => block.type !== 'toolResult')) break;
  }
  return turn;
}

/** The fields of what `prepare` returned, checked. */
function readPreparation(preparation: unknown): TurnPreparation {
  const fields = isObject(preparation) ? (preparation as Record<string, unknown>) : undefined;
  const model = fields?.model;
  const activeTools = fields?.activeTools;
  const toolChoice = fields?.toolChoice;
  const problem =
    fields === undefined
      ? 'must return undefined or { model?, activeTools?, toolChoice? }'
      : model !== undefined && !(isObject(model) && typeof (model as { stream?: unknown }).stream === 'function')
        ? 'returned a model without stream()'
        : activeTools !== undefined && !(Array.isArray(activeTools) && activeTools.every((name) => typeof name === 'string'))
          ? 'returned activeTools that is not an array of tool names'
          : toolChoice !== undefined && !isObject(toolChoice)
            ? 'returned a toolChoice that is not { type }'
            : undefined;
  if (problem !== undefined)
    throw new MiddlewareError({
      code: 'ERR_INVALID_OPTIONS',
      stage: InvokeModelStage.name,
      phase: 'input',
      handler: 'prepareTurn',
      message: `prepareTurn(): prepare ${problem}, got ${describeValue(preparation)}.`,
    });
  return preparation as TurnPreparation;
}
