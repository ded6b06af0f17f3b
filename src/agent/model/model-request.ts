import { splitSystemPrompt, type SystemContentBlock } from '../../core/index';
import { invalidSystemPrompt } from '../tools/call-errors';
import type { ModelRequest } from '../types/model';
import type { InvokeModelContext } from '../types/stages';
import { isRecord } from '../values/value-shapes';

/**
 * Builds the request a model receives from an InvokeModelStage context
 * (frozen): the system prompt in both forms, everything else as it is (frozen, shared).
 *
 * @throws MiddlewareError `ERR_INVALID_OPTIONS` (stage `invokeModel`, phase `terminal`) when the context's
 *   `systemPrompt` is not an array of blocks (a string a JavaScript handler put there, say), naming the part.
 * @example
 * ```ts
 * const request = toModelRequest(createModelContext({ model: myModel, messages: [], systemPrompt, toolSpecs, invocationState: {} }));
 * for await (const event of myModel.stream(request, { signal, state: undefined })) console.log(event);
 * ```
 */
export function toModelRequest(context: InvokeModelContext): ModelRequest {
  const { text, blocks } = splitSystemPrompt(systemBlocks(context.systemPrompt));
  return Object.freeze({
    messages: context.messages,
    systemPrompt: text,
    systemBlocks: blocks,
    toolSpecs: context.toolSpecs,
    toolChoice: context.toolChoice,
  });
}

/**
 * The context's system prompt, checked to be blocks (MW-109): a string there would reach the model whole, but
 * the handlers after the one that put it would see a string where blocks are promised, and one that adds a block
 * by spreading it (`[...context.systemPrompt, block]`) would make the prompt one-character strings that no model sees.
 */
function systemBlocks(prompt: unknown): readonly SystemContentBlock[] {
  if (!Array.isArray(prompt)) throw invalidSystemPrompt('systemPrompt', prompt);
  for (let index = 0; index < prompt.length; index++) {
    const block: unknown = prompt[index];
    if (!isRecord(block)) throw invalidSystemPrompt(`systemPrompt[${index}]`, block);
  }
  return prompt as readonly SystemContentBlock[];
}
