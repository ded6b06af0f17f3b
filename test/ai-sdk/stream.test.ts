import type { LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { Agent, type Message, type ModelRequest, type ModelStreamEvent, type StopReason } from '../../src/agent/index';
import { ScriptedTool } from '../../src/testing/index';
import { fromAiSdk } from '../../src/ai-sdk/index';
import { finishPart, mockModel, textParts, usage } from './fixtures';

const request: ModelRequest = {
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  systemPrompt: '',
  systemBlocks: [],
  toolSpecs: [],
  toolChoice: undefined,
};

/** The events the adapter makes of one response's parts. */
async function eventsOf(parts: readonly LanguageModelV3StreamPart[]): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of fromAiSdk(mockModel(parts)).stream(request, { signal: new AbortController().signal, state: {} }))
    events.push(event);
  return events;
}

describe('fromAiSdk', () => {
  describe('a text answer', () => {
    it('streams messageStart, a text delta per piece, usage and the stop reason', async () => {
      expect(await eventsOf(textParts(['Hel', '', 'lo']))).toEqual([
        { type: 'messageStart', role: 'assistant' },
        { type: 'textDelta', text: 'Hel' },
        { type: 'textDelta', text: 'lo' },
        { type: 'usage', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } },
        { type: 'messageStop', stopReason: 'endTurn' },
      ]);
    });

    it('streams reasoning as reasoning deltas and drops parts the kit has no event for', async () => {
      const events = await eventsOf([
        { type: 'stream-start', warnings: [{ type: 'other', message: 'a warning' }] },
        { type: 'response-metadata', id: 'r1', modelId: 'm' },
        { type: 'reasoning-start', id: 'r' },
        { type: 'reasoning-delta', id: 'r', delta: 'Think.' },
        { type: 'reasoning-end', id: 'r' },
        { type: 'source', sourceType: 'url', id: 's', url: 'https://example.com' },
        { type: 'raw', rawValue: { chunk: 1 } },
        { type: 'text-delta', id: 't', delta: 'Done.' },
        finishPart('stop', undefined, usage(1, 1)),
      ]);
      expect(events.map((event) => event.type)).toEqual(['messageStart', 'reasoningDelta', 'textDelta', 'usage', 'messageStop']);
    });

    it('passes on no empty reasoning delta', async () => {
      expect(
        await eventsOf([
          { type: 'reasoning-delta', id: 'r', delta: '' },
          { type: 'reasoning-delta', id: 'r', delta: 'Hm.' },
        ]),
      ).toEqual([
        { type: 'messageStart', role: 'assistant' },
        { type: 'reasoningDelta', text: 'Hm.' },
      ]);
    });
  });

  describe('tool calls', () => {
    it('names the tool use on every input delta, by id and index, so interleaved deltas of parallel calls stay apart', async () => {
      const events = await eventsOf([
        { type: 'tool-input-start', id: 'a', toolName: 'weather' },
        { type: 'tool-input-start', id: 'b', toolName: 'clock' },
        { type: 'tool-input-delta', id: 'a', delta: '{"city":' },
        { type: 'tool-input-delta', id: 'b', delta: '{"zone":"CET"}' },
        { type: 'tool-input-delta', id: 'a', delta: '"Paris"}' },
        { type: 'tool-input-end', id: 'a' },
        { type: 'tool-input-end', id: 'b' },
        { type: 'tool-call', toolCallId: 'a', toolName: 'weather', input: '{"city":"Paris"}' },
        { type: 'tool-call', toolCallId: 'b', toolName: 'clock', input: '{"zone":"CET"}' },
        finishPart('tool-calls'),
      ]);
      expect(events.slice(1, -2)).toEqual([
        { type: 'toolUseStart', toolUseId: 'a', name: 'weather' },
        { type: 'toolUseStart', toolUseId: 'b', name: 'clock' },
        { type: 'toolUseDelta', toolUseId: 'a', index: 0, input: '{"city":' },
        { type: 'toolUseDelta', toolUseId: 'b', index: 1, input: '{"zone":"CET"}' },
        { type: 'toolUseDelta', toolUseId: 'a', index: 0, input: '"Paris"}' },
      ]);
      expect(events.at(-1)).toEqual({ type: 'messageStop', stopReason: 'toolUse' });
    });

    it('passes on the whole input of a tool call whose input was not streamed', async () => {
      const events = await eventsOf([
        { type: 'tool-call', toolCallId: 'c', toolName: 'lookup', input: '{"q":1}' },
        finishPart('tool-calls'),
      ]);
      expect(events.slice(1, 3)).toEqual([
        { type: 'toolUseStart', toolUseId: 'c', name: 'lookup' },
        { type: 'toolUseDelta', toolUseId: 'c', index: 0, input: '{"q":1}' },
      ]);
    });

    it('takes the tool call input of a tool use whose deltas were raw text, not JSON', async () => {
      const events = await eventsOf([
        { type: 'tool-input-start', id: 'p', toolName: 'patch', inputEncoding: 'text' },
        { type: 'tool-input-delta', id: 'p', delta: '*** Begin Patch' },
        { type: 'tool-call', toolCallId: 'p', toolName: 'patch', input: '"*** Begin Patch"' },
        finishPart('tool-calls'),
      ]);
      expect(events.slice(1, 3)).toEqual([
        { type: 'toolUseStart', toolUseId: 'p', name: 'patch' },
        { type: 'toolUseDelta', toolUseId: 'p', index: 0, input: '"*** Begin Patch"' },
      ]);
    });

    it('starts a tool use once when its tool-input-start comes again, keeping its index and its deltas', async () => {
      const events = await eventsOf([
        { type: 'tool-input-start', id: 'a', toolName: 'weather' },
        { type: 'tool-input-delta', id: 'a', delta: '{"city":"Oslo"}' },
        { type: 'tool-input-start', id: 'b', toolName: 'clock' },
        { type: 'tool-input-start', id: 'a', toolName: 'weather' },
        { type: 'tool-call', toolCallId: 'a', toolName: 'weather', input: '{"city":"Oslo"}' },
      ]);
      expect(events.slice(1)).toEqual([
        { type: 'toolUseStart', toolUseId: 'a', name: 'weather' },
        { type: 'toolUseDelta', toolUseId: 'a', index: 0, input: '{"city":"Oslo"}' },
        { type: 'toolUseStart', toolUseId: 'b', name: 'clock' },
      ]);
    });

    it('passes on no empty input delta, and the whole input when only empty ones came', async () => {
      const events = await eventsOf([
        { type: 'tool-input-start', id: 'a', toolName: 'weather' },
        { type: 'tool-input-delta', id: 'a', delta: '' },
        { type: 'tool-call', toolCallId: 'a', toolName: 'weather', input: '{}' },
      ]);
      expect(events.slice(1)).toEqual([
        { type: 'toolUseStart', toolUseId: 'a', name: 'weather' },
        { type: 'toolUseDelta', toolUseId: 'a', index: 0, input: '{}' },
      ]);
    });

    it('passes on the input of a tool call once when its tool-call part comes twice', async () => {
      const events = await eventsOf([
        { type: 'tool-call', toolCallId: 'c', toolName: 'lookup', input: '{"q":1}' },
        { type: 'tool-call', toolCallId: 'c', toolName: 'lookup', input: '{"q":2}' },
      ]);
      expect(events.slice(1)).toEqual([
        { type: 'toolUseStart', toolUseId: 'c', name: 'lookup' },
        { type: 'toolUseDelta', toolUseId: 'c', index: 0, input: '{"q":1}' },
      ]);
    });

    it('passes on no input delta for a tool call whose input is empty', async () => {
      expect(await eventsOf([{ type: 'tool-call', toolCallId: 'c', toolName: 'lookup', input: '' }])).toEqual([
        { type: 'messageStart', role: 'assistant' },
        { type: 'toolUseStart', toolUseId: 'c', name: 'lookup' },
      ]);
    });

    it('drops tool calls the provider executes itself', async () => {
      const events = await eventsOf([
        { type: 'tool-input-start', id: 'w', toolName: 'web_search', providerExecuted: true },
        { type: 'tool-input-delta', id: 'w', delta: '{"query":"x"}' },
        { type: 'tool-call', toolCallId: 'w', toolName: 'web_search', input: '{"query":"x"}', providerExecuted: true },
        { type: 'tool-result', toolCallId: 'w', toolName: 'web_search', result: { hits: 1 } },
        { type: 'text-delta', id: 't', delta: 'Found it.' },
        finishPart('stop'),
      ]);
      expect(events.map((event) => event.type)).toEqual(['messageStart', 'textDelta', 'usage', 'messageStop']);
      expect(events.at(-1)).toEqual({ type: 'messageStop', stopReason: 'endTurn' });
    });

    it('drops a provider-executed tool call without a tool-input-start, and one whose start alone said so', async () => {
      const events = await eventsOf([
        { type: 'tool-call', toolCallId: 'w', toolName: 'web_search', input: '{"query":"x"}', providerExecuted: true },
        { type: 'tool-input-start', id: 'f', toolName: 'web_fetch', providerExecuted: true },
        { type: 'tool-call', toolCallId: 'f', toolName: 'web_fetch', input: '{"url":"u"}' },
        finishPart('stop'),
      ]);
      expect(events.map((event) => event.type)).toEqual(['messageStart', 'usage', 'messageStop']);
      expect(events.at(-1)).toEqual({ type: 'messageStop', stopReason: 'endTurn' });
    });
  });

  describe('the finish reason', () => {
    it.each<[string, LanguageModelV3StreamPart[], StopReason]>([
      ['stop', textParts(['x'], finishPart('stop', 'end_turn')), 'endTurn'],
      ['stop at a stop sequence', textParts(['x'], finishPart('stop', 'stop_sequence')), 'stopSequence'],
      ['length', textParts(['x'], finishPart('length')), 'maxTokens'],
      ['content-filter', textParts(['x'], finishPart('content-filter')), 'contentFiltered'],
      ['other', textParts(['x'], finishPart('other')), 'endTurn'],
      ['other with the raw reason stop_sequence', textParts(['x'], finishPart('other', 'stop_sequence')), 'endTurn'],
      ['tool-calls without a tool call', textParts(['x'], finishPart('tool-calls')), 'toolUse'],
      [
        'a reason given as a string',
        textParts(['x'], { type: 'finish', finishReason: 'length', usage: usage(1, 1) } as unknown as LanguageModelV3StreamPart),
        'maxTokens',
      ],
      ['tool-calls', [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: '{}' }, finishPart('tool-calls')], 'toolUse'],
      ['stop after tool calls', [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: '{}' }, finishPart('stop')], 'toolUse'],
      ['other after tool calls', [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: '{}' }, finishPart('other')], 'toolUse'],
      [
        'length after tool calls',
        [{ type: 'tool-call', toolCallId: 'c', toolName: 'f', input: '{"x":' }, finishPart('length')],
        'maxTokens',
      ],
    ])('maps %s to the stop reason', async (_name, parts, stopReason) => {
      expect((await eventsOf(parts)).at(-1)).toEqual({ type: 'messageStop', stopReason });
    });

    it('counts usage the provider did not report as zero', async () => {
      const noCounts = {
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 4, text: 4, reasoning: undefined },
      };
      expect((await eventsOf(textParts(['x'], finishPart('stop', undefined, noCounts)))).at(-2)).toEqual({
        type: 'usage',
        usage: { inputTokens: 0, outputTokens: 4, totalTokens: 4 },
      });
    });

    it.each<[string, unknown, unknown, { inputTokens: number; outputTokens: number; totalTokens: number }]>([
      ['plain numbers', 7, 4, { inputTokens: 7, outputTokens: 4, totalTokens: 11 }],
      ['numbers that are not finite', Number.NaN, Number.POSITIVE_INFINITY, { inputTokens: 0, outputTokens: 0, totalTokens: 0 }],
      [
        'totals that are not finite',
        { total: Number.NaN },
        { total: Number.NEGATIVE_INFINITY },
        { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      ],
      ['numbers given as text', '7', { total: '4' }, { inputTokens: 0, outputTokens: 0, totalTokens: 0 }],
    ])('reads token counts given as %s', async (_name, inputTokens, outputTokens, counted) => {
      const finish = { type: 'finish', finishReason: { unified: 'stop' }, usage: { inputTokens, outputTokens } };
      expect((await eventsOf([finish as unknown as LanguageModelV3StreamPart])).slice(1)).toEqual([
        { type: 'usage', usage: counted },
        { type: 'messageStop', stopReason: 'endTurn' },
      ]);
    });

    it('drops every part after the finish part, so nothing follows the messageStop', async () => {
      const events = await eventsOf([
        ...textParts(['Done.']),
        { type: 'text-delta', id: 'late', delta: 'late text' },
        { type: 'tool-call', toolCallId: 'late', toolName: 'f', input: '{}' },
        { type: 'error', error: new Error('late error') },
        finishPart('length'),
      ]);
      expect(events).toEqual([
        { type: 'messageStart', role: 'assistant' },
        { type: 'textDelta', text: 'Done.' },
        { type: 'usage', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } },
        { type: 'messageStop', stopReason: 'endTurn' },
      ]);
    });

    it('ends without usage or stop when the stream has no finish part', async () => {
      expect(await eventsOf([{ type: 'text-delta', id: 't', delta: 'cut' }])).toEqual([
        { type: 'messageStart', role: 'assistant' },
        { type: 'textDelta', text: 'cut' },
      ]);
    });
  });

  describe('parts whose fields lack the types of the specification', () => {
    it('drops them as it drops parts of types it does not read', async () => {
      const parts = [
        { type: 'text-delta', id: 't', delta: 5 },
        { type: 'text-delta', id: 't' },
        { type: 'reasoning-delta', id: 'r', delta: null },
        { type: 'tool-input-start', id: 7, toolName: 'f' },
        { type: 'tool-input-start', id: 'a' },
        { type: 'tool-input-delta', id: 'a', delta: 1 },
        { type: 'tool-call' },
        { type: 'tool-call', toolCallId: 'b', toolName: 'f', input: { q: 1 } },
        ...textParts(['x'], finishPart('stop')),
      ] as unknown as LanguageModelV3StreamPart[];
      expect(await eventsOf(parts)).toEqual([
        { type: 'messageStart', role: 'assistant' },
        { type: 'textDelta', text: 'x' },
        { type: 'usage', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } },
        { type: 'messageStop', stopReason: 'endTurn' },
      ]);
    });

    it('reads a finish reason, a raw reason and usage of other types as absent', async () => {
      const finish = { type: 'finish', finishReason: { unified: 5, raw: {} }, usage: 'many' } as unknown as LanguageModelV3StreamPart;
      const failing = {
        type: 'finish',
        finishReason: { unified: 'error', raw: Object.create(null) as object },
      } as unknown as LanguageModelV3StreamPart;
      const thrown = await eventsOf([failing]).catch((error: unknown) => error);
      expect([(await eventsOf([finish])).slice(1), thrown instanceof Error, (thrown as Error).message]).toEqual([
        [
          { type: 'usage', usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
          { type: 'messageStop', stopReason: 'endTurn' },
        ],
        true,
        'The AI SDK model finished its response with reason "error" and no error part: the response is incomplete.',
      ]);
    });
  });

  describe('an agent on an AI SDK model', () => {
    it('runs parallel tool calls whose input deltas interleave, and sends the results back with their tool names', async () => {
      const model = mockModel(
        [
          { type: 'stream-start', warnings: [] },
          { type: 'tool-input-start', id: 'call-a', toolName: 'weather' },
          { type: 'tool-input-start', id: 'call-b', toolName: 'clock' },
          { type: 'tool-input-delta', id: 'call-b', delta: '{"zone":' },
          { type: 'tool-input-delta', id: 'call-a', delta: '{"city":' },
          { type: 'tool-input-delta', id: 'call-a', delta: '"Paris"}' },
          { type: 'tool-input-delta', id: 'call-b', delta: '"CET"}' },
          { type: 'tool-call', toolCallId: 'call-a', toolName: 'weather', input: '{"city":"Paris"}' },
          { type: 'tool-call', toolCallId: 'call-b', toolName: 'clock', input: '{"zone":"CET"}' },
          finishPart('tool-calls'),
        ],
        textParts(['Sunny, ', 'noon.']),
      );
      const weather = new ScriptedTool({ name: 'weather', outcomes: [{ value: 'Sunny' }] });
      const clock = new ScriptedTool({ name: 'clock', outcomes: [{ value: { hour: 12 } }] });
      const agent = new Agent({ model: fromAiSdk(model), tools: [weather, clock], registry: new MiddlewareRegistry() });
      const result = await agent.invoke('Weather and time in Paris?');
      expect([result.stopReason, weather.calls.map((call) => call.input), clock.calls.map((call) => call.input)]).toEqual([
        'endTurn',
        [{ city: 'Paris' }],
        [{ zone: 'CET' }],
      ]);
      expect(agent.messages[1]).toEqual<Message>({
        role: 'assistant',
        content: [
          { type: 'toolUse', toolUseId: 'call-a', name: 'weather', input: { city: 'Paris' } },
          { type: 'toolUse', toolUseId: 'call-b', name: 'clock', input: { zone: 'CET' } },
        ],
      });
      expect(model.doStreamCalls[1]?.prompt.slice(1)).toEqual([
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', toolCallId: 'call-a', toolName: 'weather', input: { city: 'Paris' } },
            { type: 'tool-call', toolCallId: 'call-b', toolName: 'clock', input: { zone: 'CET' } },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'call-a', toolName: 'weather', output: { type: 'text', value: 'Sunny' } },
            { type: 'tool-result', toolCallId: 'call-b', toolName: 'clock', output: { type: 'json', value: { hour: 12 } } },
          ],
        },
      ]);
    });
  });
});
