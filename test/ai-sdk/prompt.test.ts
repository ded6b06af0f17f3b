import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { MiddlewareError, splitSystemPrompt, type SystemContentBlock } from '../../src/index';
import type { Message, ModelRequest, ToolChoice, ToolResultBlock } from '../../src/agent/index';
import { fromAiSdk, providerCachePoint, type FromAiSdkOptions } from '../../src/ai-sdk/index';
import { mockModel, textParts, withoutSignal } from './fixtures';

/** A request as the InvokeModelStage terminal builds it. */
function requestOf(parts: {
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
async function sent(
  request: ModelRequest,
  options?: FromAiSdkOptions,
  signal = new AbortController().signal,
): Promise<LanguageModelV3CallOptions> {
  const model = mockModel(textParts(['ok']));
  for await (const _event of fromAiSdk(model, options).stream(request, { signal, state: {} }));
  return model.doStreamCalls[0] as LanguageModelV3CallOptions;
}

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const result = (
  toolUseId: string,
  name: string,
  content: ToolResultBlock['content'],
  status: 'success' | 'error' = 'success',
): ToolResultBlock => ({ type: 'toolResult', toolUseId, name, status, content });

describe('fromAiSdk', () => {
  describe('the request it sends', () => {
    it('sends the system prompt, the conversation and the run signal, and no tools when there are none', async () => {
      const signal = new AbortController().signal;
      const call = await sent(
        requestOf({
          system: [{ text: 'Be brief.' }],
          messages: [
            user('Hi'),
            {
              role: 'assistant',
              content: [
                { type: 'reasoning', text: 'Greet.', signature: 'sig' },
                { type: 'text', text: 'Hello.' },
              ],
            },
            user('Bye'),
          ],
        }),
        undefined,
        signal,
      );
      expect(call.abortSignal).toBe(signal);
      expect(withoutSignal(call)).toEqual({
        prompt: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'Greet.' },
              { type: 'text', text: 'Hello.' },
            ],
          },
          { role: 'user', content: [{ type: 'text', text: 'Bye' }] },
        ],
      });
    });

    it('sends the tool specs as function tools, and the tool choice', async () => {
      const calls = await Promise.all(
        ([undefined, { type: 'auto' }, { type: 'any' }, { type: 'tool', name: 'weather' }] as const).map((toolChoice) =>
          sent(requestOf({ messages: [user('Hi')], tools: true, ...(toolChoice === undefined ? {} : { toolChoice }) })),
        ),
      );
      expect(calls[0]?.tools).toEqual([
        {
          type: 'function',
          name: 'weather',
          description: 'The weather in a city.',
          inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ]);
      expect(calls.map((call) => call.toolChoice)).toEqual([
        undefined,
        { type: 'auto' },
        { type: 'required' },
        { type: 'tool', toolName: 'weather' },
      ]);
    });

    it('passes the settings on every call, under what the request sets', async () => {
      const call = await sent(requestOf({ messages: [user('Hi')] }), {
        settings: { temperature: 0, maxOutputTokens: 64, headers: { 'x-team': 'a' }, providerOptions: { openai: { user: 'u1' } } },
      });
      expect(withoutSignal(call)).toEqual({
        temperature: 0,
        maxOutputTokens: 64,
        headers: { 'x-team': 'a' },
        providerOptions: { openai: { user: 'u1' } },
        prompt: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      });
    });
  });

  describe('tool calls and tool results', () => {
    const asked: Message = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'toolUse', toolUseId: 'a', name: 'weather', input: { city: 'Oslo' } },
        { type: 'toolUse', toolUseId: 'b', name: 'clock', input: {} },
      ],
    };

    it('sends tool uses as tool calls and a user message of results as a tool message, with tool names', async () => {
      const answered: Message = {
        role: 'user',
        content: [result('a', 'weather', [{ type: 'text', text: 'Sunny' }]), result('b', 'clock', [{ type: 'json', json: { hour: 12 } }])],
      };
      const call = await sent(requestOf({ messages: [user('Weather?'), asked, answered] }));
      expect(call.prompt.slice(1)).toEqual([
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool-call', toolCallId: 'a', toolName: 'weather', input: { city: 'Oslo' } },
            { type: 'tool-call', toolCallId: 'b', toolName: 'clock', input: {} },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'a', toolName: 'weather', output: { type: 'text', value: 'Sunny' } },
            { type: 'tool-result', toolCallId: 'b', toolName: 'clock', output: { type: 'json', value: { hour: 12 } } },
          ],
        },
      ]);
    });

    it.each<[string, ToolResultBlock['content'], 'success' | 'error', unknown]>([
      ['one text block', [{ type: 'text', text: 'Sunny' }], 'success', { type: 'text', value: 'Sunny' }],
      ['one JSON block', [{ type: 'json', json: [1, 2] }], 'success', { type: 'json', value: [1, 2] }],
      [
        'an error with one text block',
        [{ type: 'text', text: 'Tool "weather" failed: down' }],
        'error',
        { type: 'error-text', value: 'Tool "weather" failed: down' },
      ],
      ['an error with one JSON block', [{ type: 'json', json: { code: 7 } }], 'error', { type: 'error-json', value: { code: 7 } }],
      [
        'several blocks',
        [
          { type: 'text', text: 'a' },
          { type: 'json', json: { b: 1 } },
        ],
        'success',
        {
          type: 'content',
          value: [
            { type: 'text', text: 'a' },
            { type: 'text', text: '{"b":1}' },
          ],
        },
      ],
      [
        'an error with several blocks',
        [
          { type: 'text', text: 'a' },
          { type: 'json', json: null },
        ],
        'error',
        { type: 'error-text', value: 'a\nnull' },
      ],
      ['no content', [], 'success', { type: 'text', value: '' }],
    ])('sends a result of %s as its output', async (_name, content, status, output) => {
      const call = await sent(requestOf({ messages: [asked, { role: 'user', content: [result('a', 'weather', content, status)] }] }));
      expect(call.prompt[1]).toEqual({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'weather', output }] });
    });

    it('splits a user message mixing results and text into a tool message and a user message, in order', async () => {
      const call = await sent(
        requestOf({
          messages: [
            asked,
            {
              role: 'user',
              content: [
                result('a', 'weather', [{ type: 'text', text: 'Sunny' }]),
                { type: 'text', text: 'Also: hurry.' },
                result('b', 'clock', [{ type: 'text', text: '12' }]),
              ],
            },
          ],
        }),
      );
      expect(call.prompt.slice(1).map((message) => message.role)).toEqual(['tool', 'user', 'tool']);
    });

    it('names a result without a name after the tool use with its id', async () => {
      const nameless = {
        type: 'toolResult',
        toolUseId: 'b',
        status: 'success',
        content: [{ type: 'text', text: '12' }],
      } as unknown as ToolResultBlock;
      const call = await sent(requestOf({ messages: [asked, { role: 'user', content: [nameless] }] }));
      expect(call.prompt[1]).toEqual({
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'b', toolName: 'clock', output: { type: 'text', value: '12' } }],
      });
    });

    it('refuses a result without a name whose tool use it cannot find, with ERR_INVALID_OPTIONS', async () => {
      const orphan = { type: 'toolResult', toolUseId: 'zz', status: 'success', content: [] } as unknown as ToolResultBlock;
      const failure = await sent(requestOf({ messages: [{ role: 'user', content: [orphan] }] })).catch((error: unknown) => error);
      expect([MiddlewareError.isInstance(failure), (failure as MiddlewareError).code, (failure as MiddlewareError).stage]).toEqual([
        true,
        'ERR_INVALID_OPTIONS',
        'invokeModel',
      ]);
    });
  });

  describe('cache points', () => {
    it('mark the system message or part before them with Anthropic and Bedrock cache options; others are dropped', async () => {
      const cache = providerCachePoint('default');
      const call = await sent(
        requestOf({
          system: [
            { cachePoint: { type: 'default' } },
            { text: 'Rules.' },
            { cachePoint: { type: 'default' } },
            { text: 'Today is Monday.' },
            { image: 'not a text block' },
          ],
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Long document.' },
                { type: 'cachePoint', cacheType: 'default' },
                { type: 'text', text: 'Question?' },
              ],
            },
            {
              role: 'assistant',
              content: [
                { type: 'cachePoint', cacheType: 'default' },
                { type: 'text', text: 'Answer.' },
                { type: 'cachePoint', cacheType: 'default' },
              ],
            },
          ],
        }),
      );
      expect(call.prompt).toEqual([
        { role: 'system', content: 'Rules.', providerOptions: cache },
        { role: 'system', content: 'Today is Monday.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Long document.', providerOptions: cache },
            { type: 'text', text: 'Question?' },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'Answer.', providerOptions: cache }] },
      ]);
      expect(cache).toEqual({ anthropic: { cacheControl: { type: 'ephemeral' } }, bedrock: { cachePoint: { type: 'default' } } });
    });

    it('use the cachePoint option when given, and are dropped when it answers undefined', async () => {
      const request = requestOf({
        system: [{ text: 'Rules.' }, { cachePoint: { type: 'default' } }],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Hi' },
              { type: 'cachePoint', cacheType: 'skip' },
            ],
          },
        ],
      });
      const call = await sent(request, {
        cachePoint: (cacheType) => (cacheType === 'skip' ? undefined : { anthropic: { cacheControl: { type: 'ephemeral', ttl: '1h' } } }),
      });
      expect(call.prompt).toEqual([
        { role: 'system', content: 'Rules.', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral', ttl: '1h' } } } },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      ]);
    });
  });
});
