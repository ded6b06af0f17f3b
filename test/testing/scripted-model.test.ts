import { createDraft } from 'immer';
import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { toModelRequest, type InvokeModelContext, type ModelStreamEvent } from '../../src/agent/index';
import { ScriptedModel, failingTurn, textTurn, toolUseTurn } from '../../src/testing/index';

const never = new AbortController().signal;

function contextFor(events: readonly ModelStreamEvent[]): InvokeModelContext {
  return { model: new ScriptedModel([{ events }]), messages: [], systemPrompt: [], toolSpecs: [], invocationState: {} };
}

describe('ScriptedModel', () => {
  describe('stream', () => {
    it('plays one turn per call and records each request and state', async () => {
      const model = new ScriptedModel([textTurn('a b'), { ...textTurn('c'), stateWrites: { n: 2 } }]);
      const request = toModelRequest(contextFor([]));
      const first: ModelStreamEvent[] = [];
      for await (const event of model.stream(request, { signal: never, state: createDraft({ n: 1 }) })) first.push(event);
      expect(first).toEqual([
        { type: 'messageStart', role: 'assistant' },
        { type: 'textDelta', text: 'a ' },
        { type: 'textDelta', text: 'b' },
        { type: 'messageStop', stopReason: 'endTurn' },
      ]);
      const state = createDraft({ n: 1, gone: true });
      for await (const _event of model.stream(request, { signal: never, state }));
      expect(model.calls.map((call) => call.state)).toEqual([{ n: 1 }, { n: 1, gone: true }]);
      expect(model.calls[0]?.request).toBe(request);
      expect({ ...state }).toEqual({ n: 2, gone: true });
    });

    it('throws the scripted error after the scripted events', async () => {
      const failure = new Error('overloaded');
      const model = new ScriptedModel([failingTurn(failure, [{ type: 'messageStart', role: 'assistant' }])]);
      const seen: unknown[] = [];
      const run = async (): Promise<void> => {
        for await (const event of model.stream(toModelRequest(contextFor([])), { signal: never, state: createDraft({}) }))
          seen.push(event.type);
      };
      await expect(run()).rejects.toBe(failure);
      expect(seen).toEqual(['messageStart']);
    });

    it('deletes scripted keys from the state draft', async () => {
      const model = new ScriptedModel([{ ...textTurn('x'), stateDeletes: ['a'] }]);
      const state = createDraft({ a: 1, b: 2 });
      for await (const _event of model.stream(toModelRequest(contextFor([])), { signal: never, state }));
      expect({ ...state }).toEqual({ b: 2 });
    });

    it('plays a turn with state writes and deletes when the call has no state (a modelTerminal invoke without a binding)', async () => {
      const model = new ScriptedModel([{ ...textTurn('x'), stateWrites: { n: 2 }, stateDeletes: ['a'] }]);
      const events: string[] = [];
      for await (const event of model.stream(toModelRequest(contextFor([])), { signal: never, state: undefined })) events.push(event.type);
      expect([events, model.calls.map((call) => call.state)]).toEqual([['messageStart', 'textDelta', 'messageStop'], [undefined]]);
    });

    it('stops with the abort reason when the signal is aborted', async () => {
      const model = new ScriptedModel([textTurn('x y')]);
      const reason = new Error('stop');
      const run = async (): Promise<void> => {
        for await (const _event of model.stream(toModelRequest(contextFor([])), {
          signal: AbortSignal.abort(reason),
          state: createDraft({}),
        }));
      };
      await expect(run()).rejects.toBe(reason);
    });

    it('fails with ERR_SCRIPT_EXHAUSTED past the end of the script', async () => {
      const model = new ScriptedModel([]);
      const run = async (): Promise<void> => {
        for await (const _event of model.stream(toModelRequest(contextFor([])), { signal: never, state: createDraft({}) }));
      };
      const error = (await run().catch((caught: unknown) => caught)) as MiddlewareError;
      expect([MiddlewareError.isInstance(error), error.code, error.message]).toEqual([
        true,
        'ERR_SCRIPT_EXHAUSTED',
        '[ERR_SCRIPT_EXHAUSTED] ScriptedModel was called 1 times, but its script has 0 turns. Add a turn for every model call the test makes (retries included).',
      ]);
    });
  });

  describe('turn builders', () => {
    it('builds a tool-use turn with default ids, text and usage', () => {
      const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
      expect(
        toolUseTurn(
          [
            { name: 'f', input: { a: 1 } },
            { name: 'g', input: [] },
          ],
          { text: 'Using tools.', usage },
        ),
      ).toEqual({
        events: [
          { type: 'messageStart', role: 'assistant' },
          { type: 'textDelta', text: 'Using tools.' },
          { type: 'toolUseStart', toolUseId: 'tool-1', name: 'f' },
          { type: 'toolUseDelta', input: '{"a":1}' },
          { type: 'toolUseStart', toolUseId: 'tool-2', name: 'g' },
          { type: 'toolUseDelta', input: '[]' },
          { type: 'usage', usage },
          { type: 'messageStop', stopReason: 'toolUse' },
        ],
      });
    });

    it('builds a text turn with a chosen stop reason', () => {
      expect(textTurn('', { stopReason: 'maxTokens' })).toEqual({
        events: [
          { type: 'messageStart', role: 'assistant' },
          { type: 'messageStop', stopReason: 'maxTokens' },
        ],
      });
    });
  });

  describe('turn builders given the wrong shape', () => {
    it('rejects text that is not a string with ERR_INVALID_OPTIONS', () => {
      expect(() => textTurn(5 as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', stage: 'invokeModel', message: expect.stringContaining('textTurn(text)') }),
      );
    });

    it.each<[string, unknown]>([
      ['a single tool use', { name: 'f', input: {} }],
      ['a tool use without a name', [{ input: {} }]],
    ])('rejects %s with ERR_INVALID_OPTIONS', (_label, toolUses) => {
      expect(() => toolUseTurn(toolUses as never)).toThrow(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          stage: 'invokeModel',
          message: expect.stringContaining('toolUseTurn(toolUses)'),
        }),
      );
    });
  });

  describe('constructor', () => {
    it.each<[string, unknown]>([
      ['a single turn', textTurn('hi')],
      ['a list holding null', [null]],
    ])('rejects %s with ERR_INVALID_OPTIONS', (_label, turns) => {
      expect(() => new ScriptedModel(turns as never)).toThrow(
        expect.objectContaining({
          code: 'ERR_INVALID_OPTIONS',
          stage: 'invokeModel',
          message: expect.stringContaining('new ScriptedModel(turns)'),
        }),
      );
    });
  });
});
