import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { callModel, InvokeModelStage, type InvokeModelContext, type InvokeModelEvent, type ModelCallParts } from '../../src/agent/index';
import { ScriptedModel, failingTurn, textTurn, toolUseTurn } from '../../src/testing/index';
import { caught, drain, fields } from '../assertions';
import { user } from './fixtures';

const usage = { inputTokens: 7, outputTokens: 2, totalTokens: 9 };

/** The parts of a call of `model` on one user message. */
function partsFor(model: ScriptedModel, modelState: Record<string, unknown> = { turn: 0 }): ModelCallParts {
  return { model, messages: [user('Find it.')], systemPrompt: 'Be brief.', toolSpecs: [], modelState, invocationState: {} };
}

describe('callModel', () => {
  describe('with an Output handler and a model that asks for a tool and writes its state', () => {
    it('yields every event of the invoke and returns the transformed message, its tool uses, usage and the written state', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Output, (result) =>
        result.update((draft) => {
          for (const block of draft.message.content) if (block.type === 'text') block.text = block.text.toUpperCase();
        }),
      );
      const model = new ScriptedModel([
        { ...toolUseTurn([{ name: 'find', input: { q: 'x' }, toolUseId: 'f1' }], { text: 'looking', usage }), stateWrites: { turn: 1 } },
      ]);
      const { events, value } = await drain(callModel(registry, partsFor(model)));
      const message = {
        role: 'assistant',
        content: [
          { type: 'text', text: 'LOOKING' },
          { type: 'toolUse', toolUseId: 'f1', name: 'find', input: { q: 'x' } },
        ],
      };
      expect({
        types: events.map((event) => event.type),
        last: events[events.length - 1],
        value,
        frozen: [Object.isFrozen(value), Object.isFrozen(value.message), Object.isFrozen(value.toolUses)],
        request: [model.calls[0]?.request.systemPrompt, model.calls[0]?.state],
      }).toEqual({
        types: ['messageStart', 'textDelta', 'toolUseStart', 'toolUseDelta', 'usage', 'messageStop', 'modelResult'],
        last: { type: 'modelResult', message, stopReason: 'toolUse', usage },
        value: { message, stopReason: 'toolUse', usage, toolUses: [message.content[1]], modelState: { turn: 1 } },
        frozen: [true, true, true],
        request: ['Be brief.', { turn: 0 }],
      });
    });
  });

  describe('with an Output handler that turns toolUse into endTurn', () => {
    it('returns no tool uses to run, though the message still holds its toolUse block', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Output, (result) => result.update((draft) => void (draft.stopReason = 'endTurn')));
      const model = new ScriptedModel([toolUseTurn([{ name: 'find', input: {}, toolUseId: 'f1' }])]);
      const { value } = await drain(callModel(registry, partsFor(model)));
      expect({ stopReason: value.stopReason, toolUses: value.toolUses, blocks: value.message.content.length }).toEqual({
        stopReason: 'endTurn',
        toolUses: [],
        blocks: 1,
      });
    });
  });

  describe('with a model that writes nothing', () => {
    it('returns the very model state it started from', async () => {
      const modelState = Object.freeze({ kept: true });
      const { value } = await drain(callModel(new MiddlewareRegistry(), partsFor(new ScriptedModel([textTurn('hi')]), modelState)));
      expect(value.modelState).toBe(modelState);
    });
  });

  describe('with a terminal of its own', () => {
    it('invokes that terminal instead of modelTerminal, with the context createModelContext builds', async () => {
      const seen: unknown[] = [];
      const message = { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'from my terminal' }] };
      async function* terminal(context: InvokeModelContext): AsyncGenerator<InvokeModelEvent> {
        seen.push([context.messages, context.systemPrompt, context.modelState]);
        yield { type: 'modelResult', message, stopReason: 'endTurn', usage };
      }
      const model = new ScriptedModel([]);
      const { value } = await drain(callModel(new MiddlewareRegistry(), partsFor(model), { terminal }));
      expect({ seen, value, modelCalls: model.calls.length }).toEqual({
        seen: [[[user('Find it.')], [{ text: 'Be brief.' }], { turn: 0 }]],
        value: { message, stopReason: 'endTurn', usage, toolUses: [], modelState: { turn: 0 } },
        modelCalls: 0,
      });
    });
  });

  describe('with a model that fails after writing its state', () => {
    it('rejects with the very error', async () => {
      const failure = new Error('model down');
      const model = new ScriptedModel([{ ...failingTurn(failure), stateWrites: { turn: 1 } }]);
      await expect(drain(callModel(new MiddlewareRegistry(), partsFor(model)))).rejects.toBe(failure);
    });
  });

  describe("with a Wrap handler's own result that contains itself", () => {
    it('rejects with ERR_INVALID_OPTIONS, naming the part as a part of the model result', async () => {
      const registry = new MiddlewareRegistry();
      const block: Record<string, unknown> = { type: 'text', text: 'mine' };
      block.self = block;
      registry.add(InvokeModelStage.Wrap, async function* ownResult() {
        yield { type: 'modelResult', message: { role: 'assistant', content: [block] }, stopReason: 'endTurn', usage } as never;
      });
      const error = await drain(callModel(registry, partsFor(new ScriptedModel([textTurn('unused')])))).catch(
        (caughtError: unknown) => caughtError,
      );
      expect([fields(error).code, (error as Error).message]).toEqual([
        'ERR_INVALID_OPTIONS',
        expect.stringContaining('modelResult.message.content[0].self refers back to modelResult.message.content[0]'),
      ]);
    });
  });

  describe('with parts it cannot call a model with', () => {
    it.each([
      ['no parts', undefined],
      ['no model state', { model: new ScriptedModel([]), messages: [], systemPrompt: undefined, toolSpecs: [], invocationState: {} }],
      ['messages that are not an array', { ...partsFor(new ScriptedModel([])), messages: 'hi' }],
    ])('throws ERR_INVALID_OPTIONS at once for %s', (_case, parts) => {
      const error = caught(() => callModel(new MiddlewareRegistry(), parts as unknown as ModelCallParts));
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_OPTIONS', stage: 'invokeModel', phase: undefined, handler: undefined });
    });
  });
});
