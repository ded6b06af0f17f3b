/** The requests, messages and tool results the prompt tests of fromAiSdk build, and what the mock model received. */
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { splitSystemPrompt, type SystemContentBlock } from '../../src/core/index';
import type { Message, ModelRequest, ToolChoice, ToolResultBlock } from '../../src/agent/index';
import { fromAiSdk, type FromAiSdkOptions } from '../../src/ai-sdk/index';
import { mockModel, textParts } from './fixtures';

/** A request as the InvokeModelStage terminal builds it. */
export function requestOf(parts: {
  messages?: readonly Message[];
  system?: readonly SystemContentBlock[];
  toolChoice?: ToolChoice;
  tools?: boolean;
}): ModelRequest {
  const { text, blocks } = splitSystemPrompt(parts.system ?? []);
  return {
    messages: parts.messages ?? [],
    systemPrompt: text,
    systemBlocks: blocks,
    toolSpecs:
      parts.tools === true
        ? [
            {
              name: 'weather',
              description: 'The weather in a city.',
              inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
            },
          ]
        : [],
    toolChoice: parts.toolChoice,
  };
}

/** What doStream received for one call with this request. */
export async function sent(
  request: ModelRequest,
  options?: FromAiSdkOptions,
  signal = new AbortController().signal,
): Promise<LanguageModelV3CallOptions> {
  const model = mockModel(textParts(['ok']));
  for await (const _event of fromAiSdk(model, options).stream(request, { signal, state: {} }));
  return model.doStreamCalls[0] as LanguageModelV3CallOptions;
}

/** A user message of one text block. */
export const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
/** A tool result block. */
export const result = (
  toolUseId: string,
  name: string,
  content: ToolResultBlock['content'],
  status: 'success' | 'error' = 'success',
): ToolResultBlock => ({ type: 'toolResult', toolUseId, name, status, content });
