import { describe, expect, it } from 'vitest';
import { providerCachePoint } from '../../src/ai-sdk/index';
import { withoutSignal } from './fixtures';
import { requestOf, result, sent, user } from './prompt-requests';

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

    it('drops an assistant message left with no part', async () => {
      const call = await sent(
        requestOf({
          messages: [user('Hi'), { role: 'assistant', content: [{ type: 'cachePoint', cacheType: 'default' }] }, user('Again')],
        }),
      );
      expect(call.prompt).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'user', content: [{ type: 'text', text: 'Again' }] },
      ]);
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

    it('merge the options of several cache points after one part, provider by provider and key by key', async () => {
      const request = requestOf({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Hi' },
              { type: 'cachePoint', cacheType: 'a' },
              { type: 'cachePoint', cacheType: 'b' },
            ],
          },
        ],
      });
      const call = await sent(request, { cachePoint: (cacheType) => ({ shared: { [cacheType]: true }, [cacheType]: { on: true } }) });
      expect(call.prompt).toEqual([
        {
          role: 'user',
          content: [{ type: 'text', text: 'Hi', providerOptions: { shared: { a: true, b: true }, a: { on: true }, b: { on: true } } }],
        },
      ]);
    });

    it('are taken only from cache point blocks: a system block whose cache type is no string, and other blocks, mark nothing', async () => {
      const request = requestOf({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'a' },
              { type: 'reasoning', text: 'not a user block' },
              { type: 'text', text: 'b' },
            ],
          },
          {
            role: 'assistant',
            content: [{ type: 'text', text: 'c' }, result('x', 'lookup', [{ type: 'text', text: 'not an assistant block' }])],
          },
        ],
      });
      const call = await sent({ ...request, systemBlocks: [{ text: 'Rules.' }, { cachePoint: { type: 5 } }] });
      expect(call.prompt).toEqual([
        { role: 'system', content: 'Rules.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'c' }] },
      ]);
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

    it('merge a provider named "__proto__" as an own key of the provider options (MW-139)', async () => {
      const request = requestOf({ system: [{ text: 'Rules.' }, { cachePoint: { type: 'default' } }], messages: [user('Hi')] });
      const call = await sent(request, { cachePoint: () => JSON.parse('{"__proto__":{"ttl":"1h"}}') as Record<string, never> });
      const options = (call.prompt[0] as { providerOptions: object }).providerOptions;
      expect([Object.keys(options), Object.getPrototypeOf(options) === Object.prototype, options]).toEqual([
        ['__proto__'],
        true,
        JSON.parse('{"__proto__":{"ttl":"1h"}}'),
      ]);
    });
  });
});
