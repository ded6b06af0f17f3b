import { splitSystemPrompt } from '../system-prompt';
import type { ModelRequest } from './model-types';
import type { InvokeModelContext } from './stage-types';

/**
 * Builds the request a model receives from an InvokeModelStage context
 * (frozen): the system prompt in both forms, everything else as it is (frozen, shared).
 *
 * @example
 * ```ts
 * const request = toModelRequest(createModelContext({ model: myModel, messages: [], systemPrompt, toolSpecs, invocationState: {} }));
 * for await (const event of myModel.stream(request, { signal, state: undefined })) console.log(event);
 * ```
 */
export function toModelRequest(context: InvokeModelContext): ModelRequest {
  const { text, blocks } = splitSystemPrompt(context.systemPrompt);
  return Object.freeze({
    messages: context.messages,
    systemPrompt: text,
    systemBlocks: blocks,
    toolSpecs: context.toolSpecs,
    toolChoice: context.toolChoice,
  });
}
