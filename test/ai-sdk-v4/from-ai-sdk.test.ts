import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, type Message, type ModelRequest, type ModelStreamEvent } from '../../src/agent/index';
import { ScriptedTool } from '../../src/testing/index';
import { fromAiSdk } from '../../src/ai-sdk/index';
import { finishPart, mockModelV4, textParts, type V4StreamPart } from './fixtures';
import { collect } from '../assertions';

const request: ModelRequest = {
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  systemPrompt: 'Be brief.',
  systemBlocks: [{ text: 'Be brief.' }],
  toolSpecs: [],
  toolChoice: undefined,
};

/** The events the adapter makes of one v4 response's parts. */
function eventsOf(parts: readonly V4StreamPart[]): Promise<ModelStreamEvent[]> {
  return collect(fromAiSdk(mockModelV4(parts)).stream(request, { signal: new AbortController().signal, state: {} }));
}

describe('fromAiSdk', () => {
  describe('a model of specification v4 (MockLanguageModelV4 of ai 7)', () => {
    it('keeps the provider and model id', () => {
      const model = fromAiSdk(mockModelV4());
      expect([model.provider, model.modelId]).toEqual(['mock-provider', 'mock-model']);
    });

    it('streams a text answer as it streams one of specification v3', async () => {
      expect(await eventsOf(textParts(['Hel', '', 'lo']))).toEqual([
        { type: 'messageStart', role: 'assistant' },
        { type: 'textDelta', text: 'Hel' },
        { type: 'textDelta', text: 'lo' },
        { type: 'usage', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } },
        { type: 'messageStop', stopReason: 'endTurn' },
      ]);
    });

    it('drops the parts v4 added that the kit has no event for: citations, custom content, reasoning files, pings', async () => {
      const events = await eventsOf([
        { type: 'stream-start', warnings: [] },
        { type: 'ping' },
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-delta', id: 'r', delta: 'Think.' },
        { type: 'reasoning-end', id: 'r' },
        { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: 'AAAA' } },
        { type: 'custom', kind: 'openai.compaction' },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Done.' },
        {
          type: 'text-end',
          id: 't',
          citations: [{ source: { type: 'source', sourceType: 'url', id: 's', url: 'https://example.com' }, citedText: 'Done' }],
        },
        { type: 'tool-approval-request', approvalId: 'a', toolCallId: 'c' },
        finishPart('stop', 1, 1),
      ]);
      expect(events).toEqual([
        { type: 'messageStart', role: 'assistant' },
        { type: 'reasoningDelta', text: 'Think.' },
        { type: 'textDelta', text: 'Done.' },
        { type: 'usage', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } },
        { type: 'messageStop', stopReason: 'endTurn' },
      ]);
    });

    it('ends an interrupted response after its usage, with no stop reason, and ignores what follows', async () => {
      expect(await eventsOf([...textParts(['Half'], finishPart('interrupted')), { type: 'text-delta', id: 'txt', delta: 'more' }])).toEqual(
        [
          { type: 'messageStart', role: 'assistant' },
          { type: 'textDelta', text: 'Half' },
          { type: 'usage', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } },
        ],
      );
    });

    it('sends the system prompt and the conversation as v4 call options', async () => {
      const model = mockModelV4(textParts(['ok']));
      const adapted = fromAiSdk(model, { settings: { reasoning: 'low', temperature: 0 } });
      for await (const _event of adapted.stream(request, { signal: new AbortController().signal, state: {} }));
      const { abortSignal: _signal, ...call } = model.doStreamCalls[0] ?? { prompt: [] };
      expect(call).toEqual({
        reasoning: 'low',
        temperature: 0,
        prompt: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: [{ type: 'text', text: 'hi' }] },
        ],
      });
    });
  });

  describe('an agent on a v4 model', () => {
    it('runs a tool call and sends the result back with its tool name', async () => {
      const model = mockModelV4(
        [
          { type: 'stream-start', warnings: [] },
          { type: 'tool-input-start', id: 'call-a', toolName: 'weather' },
          { type: 'tool-input-delta', id: 'call-a', delta: '{"city":' },
          { type: 'tool-input-delta', id: 'call-a', delta: '"Paris"}' },
          { type: 'tool-input-end', id: 'call-a' },
          { type: 'tool-call', toolCallId: 'call-a', toolName: 'weather', input: '{"city":"Paris"}' },
          finishPart('tool-calls'),
        ],
        textParts(['Sunny.']),
      );
      const weather = new ScriptedTool({ name: 'weather', outcomes: [{ value: 'Sunny' }] });
      const agent = new Agent({ model: fromAiSdk(model), tools: [weather], registry: new MiddlewareRegistry() });
      const result = await agent.invoke('Weather in Paris?');
      expect([result.stopReason, result.usage, weather.calls.map((call) => call.input)]).toEqual([
        'endTurn',
        { inputTokens: 6, outputTokens: 4, totalTokens: 10 },
        [{ city: 'Paris' }],
      ]);
      expect(agent.messages.slice(1)).toEqual<Message[]>([
        { role: 'assistant', content: [{ type: 'toolUse', toolUseId: 'call-a', name: 'weather', input: { city: 'Paris' } }] },
        {
          role: 'user',
          content: [
            { type: 'toolResult', toolUseId: 'call-a', name: 'weather', status: 'success', content: [{ type: 'text', text: 'Sunny' }] },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'Sunny.' }] },
      ]);
      expect(model.doStreamCalls[1]?.prompt).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call-a', toolName: 'weather', input: { city: 'Paris' } }] },
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'call-a', toolName: 'weather', output: { type: 'text', value: 'Sunny' } }],
        },
      ]);
    });
  });
});
