import { createDraft } from 'immer';
import { describe, expect, it } from 'vitest';
import {
  errorResult,
  isAgentResult,
  isModelResult,
  isToolResult,
  modelTerminal,
  toResultContent,
  toModelRequest,
  InvokeModelStage,
  type InvokeModelContext,
  type InvokeModelEvent,
  type ModelStreamEvent,
} from '../../src/agent/index';
import { ScriptedModel } from '../../src/testing/index';

const never = new AbortController().signal;

function contextFor(events: readonly ModelStreamEvent[]): InvokeModelContext {
  return { model: new ScriptedModel([{ events }]), messages: [], systemPrompt: [], toolSpecs: [], invocationState: {} };
}

async function play(events: readonly ModelStreamEvent[]): Promise<InvokeModelEvent[]> {
  const all: InvokeModelEvent[] = [];
  for await (const event of modelTerminal(contextFor(events), { stage: InvokeModelStage, signal: never, state: createDraft({}) }))
    all.push(event);
  return all;
}

describe('modelTerminal', () => {
  describe('assembling', () => {
    it('joins consecutive deltas into blocks and parses tool input JSON', async () => {
      const events = await play([
        { type: 'messageStart', role: 'assistant' },
        { type: 'reasoningDelta', text: 'think ' },
        { type: 'reasoningDelta', text: 'hard' },
        { type: 'textDelta', text: 'Hel' },
        { type: 'textDelta', text: 'lo' },
        { type: 'toolUseStart', toolUseId: 'a', name: 'f' },
        { type: 'toolUseDelta', input: '{"x":' },
        { type: 'toolUseDelta', input: '1}' },
        { type: 'toolUseStart', toolUseId: 'b', name: 'g' },
        { type: 'toolUseStart', toolUseId: 'c', name: 'h' },
        { type: 'toolUseDelta', input: '{broken' },
        { type: 'usage', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
        { type: 'messageStop', stopReason: 'toolUse' },
      ]);
      expect(events.at(-1)).toEqual({
        type: 'modelResult',
        message: {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'think hard' },
            { type: 'text', text: 'Hello' },
            { type: 'toolUse', toolUseId: 'a', name: 'f', input: { x: 1 } },
            { type: 'toolUse', toolUseId: 'b', name: 'g', input: {} },
            { type: 'toolUse', toolUseId: 'c', name: 'h', input: '{broken' },
          ],
        },
        stopReason: 'toolUse',
        usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      });
      expect(events.length).toEqual(14);
    });

    it('ends with endTurn and zero usage when the stream has no stop or usage, ignoring stray deltas', async () => {
      const events = await play([
        { type: 'toolUseDelta', input: '{}' },
        { type: 'textDelta', text: 'hi' },
      ]);
      expect(events.at(-1)).toEqual({
        type: 'modelResult',
        message: { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
        stopReason: 'endTurn',
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      });
    });

    it('forwards unknown event kinds untouched', async () => {
      const odd = { type: 'providerSpecific', data: 1 } as unknown as ModelStreamEvent;
      const context: InvokeModelContext = {
        ...contextFor([]),
        model: {
          async *stream() {
            yield odd;
          },
        },
      };
      const events: InvokeModelEvent[] = [];
      for await (const event of modelTerminal(context, { stage: InvokeModelStage, signal: never, state: createDraft({}) }))
        events.push(event);
      expect(events[0]).toBe(odd);
    });
  });

  describe('the request it sends (toModelRequest)', () => {
    it('gives the model the system prompt in both forms and everything else as it is', () => {
      const context: InvokeModelContext = {
        ...contextFor([]),
        systemPrompt: [{ text: 'a' }, { cachePoint: { type: 'default' } }],
        toolChoice: { type: 'tool', name: 'f' },
      };
      expect(toModelRequest(context)).toEqual({
        messages: [],
        systemPrompt: 'a',
        systemBlocks: context.systemPrompt,
        toolSpecs: [],
        toolChoice: { type: 'tool', name: 'f' },
      });
    });
  });
});

describe('isModelResult, isToolResult, isAgentResult', () => {
  describe('events of every kind', () => {
    it.each([
      [isModelResult, { type: 'modelResult' }, true],
      [isModelResult, { type: 'textDelta' }, false],
      [isToolResult, { type: 'toolResult' }, true],
      [isToolResult, null, false],
      [isAgentResult, { type: 'agentResult' }, true],
      [isAgentResult, 'agentResult', false],
    ])('%o on %j is %j', (guard, event, expected) => {
      expect(guard(event)).toEqual(expected);
    });
  });
});

describe('toResultContent', () => {
  describe('tool return values', () => {
    it.each([
      ['text', 'hi', [{ type: 'text', text: 'hi' }]],
      ['json', { a: 1 }, [{ type: 'json', json: { a: 1 } }]],
      ['undefined as null', undefined, [{ type: 'json', json: null }]],
    ])('sends %s', (_label, value, expected) => {
      expect(toResultContent(value)).toEqual(expected);
    });
  });
});

describe('errorResult', () => {
  describe('with and without the error', () => {
    it('builds an error result answering the tool use, with the error only when given', () => {
      const error = new Error('x');
      const toolUse = { toolUseId: 't', name: 'lookup', input: { q: 1 } };
      expect(errorResult(toolUse, 'bad')).toEqual({
        type: 'toolResult',
        toolResult: { type: 'toolResult', toolUseId: 't', name: 'lookup', status: 'error', content: [{ type: 'text', text: 'bad' }] },
      });
      expect(errorResult(toolUse, 'bad', error).error).toBe(error);
    });

    it.each([
      ['a tool-use id alone', 't'],
      ['a tool use without a name', { toolUseId: 't' }],
      ['a tool use whose id is not a string', { toolUseId: 7, name: 'lookup' }],
      ['null', null],
    ])('refuses %s with ERR_INVALID_OPTIONS', (_name, toolUse) => {
      expect(() => errorResult(toolUse as never, 'bad')).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'executeTool' }),
      );
    });
  });
});
