import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import type { Message, ToolResultBlock } from '../../src/agent/index';
import { requestOf, result, sent, user } from './prompt-requests';

/** The clock tool's result without a name, as results stored before results carried names are. */
const namelessClock = withoutName(result('b', 'clock', [{ type: 'text', text: '12' }]));

function withoutName(block: ToolResultBlock): ToolResultBlock {
  const copy: { -readonly [Key in keyof ToolResultBlock]?: ToolResultBlock[Key] } = { ...block };
  delete copy.name;
  return copy as ToolResultBlock;
}

describe('fromAiSdk', () => {
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
      [
        'several blocks, one of them a JSON block with no JSON text',
        [
          { type: 'text', text: 'a' },
          { type: 'json', json: undefined as never },
        ],
        'success',
        {
          type: 'content',
          value: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'null' },
          ],
        },
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
      const call = await sent(requestOf({ messages: [asked, { role: 'user', content: [namelessClock] }] }));
      expect(call.prompt[1]).toEqual({
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'b', toolName: 'clock', output: { type: 'text', value: '12' } }],
      });
    });

    it('names a result without a name after a tool use of an assistant message, passing over other blocks with its id', async () => {
      const call = await sent(
        requestOf({
          messages: [
            asked,
            // Neither an assistant message's tool result (dropped from the prompt) nor a user message's tool use names it.
            { role: 'assistant', content: [result('b', 'stale', [])] },
            { role: 'user', content: [{ type: 'toolUse', toolUseId: 'b', name: 'echo', input: {} }] },
            { role: 'user', content: [namelessClock] },
          ],
        }),
      );
      expect(call.prompt.at(-1)).toEqual({
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'b', toolName: 'clock', output: { type: 'text', value: '12' } }],
      });
    });

    it('names a result with an empty name after the tool use with its id', async () => {
      const call = await sent(
        requestOf({ messages: [asked, { role: 'user', content: [result('b', '', [{ type: 'text', text: '12' }])] }] }),
      );
      expect(call.prompt[1]).toEqual({
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'b', toolName: 'clock', output: { type: 'text', value: '12' } }],
      });
    });

    it('sends a result with its own name, whatever tool use has its id, and with none in the request', async () => {
      const call = await sent(
        requestOf({
          messages: [
            asked,
            {
              role: 'user',
              content: [result('a', 'forecast', [{ type: 'text', text: 'Sunny' }]), result('zz', 'lookup', [{ type: 'text', text: 'x' }])],
            },
          ],
        }),
      );
      expect(call.prompt[1]).toEqual({
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'a', toolName: 'forecast', output: { type: 'text', value: 'Sunny' } },
          { type: 'tool-result', toolCallId: 'zz', toolName: 'lookup', output: { type: 'text', value: 'x' } },
        ],
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
});
