/**
 * `dynamicSystemPrompt()`: the system prompt of each of the agent's model
 * calls, computed when the call is made (MW-295).
 */
import type { InputHandler, SystemPrompt } from '../../core/index';
import { MiddlewareError, toSystemBlocks } from '../../core/index';
import { describeValue } from '../../util/describe-value';
import { invalidOption } from '../../middleware/errors';
import { frozenCopy } from '../values/freeze';
import type { InvokeModelContext } from '../types/stages';
import { InvokeModelStage } from '../stages';

/** Computes the system prompt of one model call from its context; `undefined` keeps the context's. */
export type SystemPromptFunction = (context: InvokeModelContext) => SystemPrompt | undefined | PromiseLike<SystemPrompt | undefined>;

/**
 * An InvokeModelStage Input handler named `dynamicSystemPrompt` (LangChain's
 * `dynamicSystemPromptMiddleware`): before each of the agent's own model
 * calls (a context without `caller`), awaits `prompt(context)` and gives the
 * call its result as the system prompt (a string becomes one text block;
 * blocks keep their cache points). `undefined` keeps the context's. A
 * middleware's own call (a compaction summary) keeps its own prompt.
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (`phase: 'register'`, `handler: 'dynamicSystemPrompt'`) when `prompt`
 *   is not a function; at the call (`stage: 'invokeModel'`, `phase: 'input'`) when it returns anything but a string,
 *   an array of blocks or `undefined`. An error it throws fails the call unchanged.
 * @example
 * ```ts
 * registry.add(InvokeModelStage.Input, dynamicSystemPrompt((context) => `You help ${context.agent?.name ?? 'a user'}. Today is ${new Date().toDateString()}.`));
 * ```
 */
export function dynamicSystemPrompt(prompt: SystemPromptFunction): InputHandler<InvokeModelContext> {
  if (typeof prompt !== 'function')
    throw invalidOption('dynamicSystemPrompt', 'prompt must be a function (context) => string | blocks | undefined', prompt);
  const handler: InputHandler<InvokeModelContext> = async function (context) {
    if (context.caller !== undefined) return context;
    const computed: unknown = await prompt(context);
    if (computed === undefined) return context;
    const valid =
      typeof computed === 'string' ||
      (Array.isArray(computed) && (computed as unknown[]).every((block: unknown) => typeof block === 'object' && block !== null));
    if (!valid)
      throw new MiddlewareError({
        code: 'ERR_INVALID_OPTIONS',
        stage: InvokeModelStage.name,
        phase: 'input',
        handler: 'dynamicSystemPrompt',
        message: `dynamicSystemPrompt(): prompt must return a string, an array of blocks ({ text } or { cachePoint }) or undefined, got ${describeValue(computed)}.`,
      });
    return { ...context, systemPrompt: frozenCopy(toSystemBlocks(computed as SystemPrompt), 'systemPrompt') };
  };
  // Named explicitly: a bundler renames a function whose name the module's scope already takes.
  return Object.defineProperty(handler, 'name', { value: 'dynamicSystemPrompt' });
}
