import { createDraft } from 'immer';
import { describe, expect, it } from 'vitest';
import {
  InvokeModelStage,
  modelTerminal,
  type ContentBlock,
  type InvokeModelContext,
  type Model,
  type ModelStreamEvent,
} from '../../src/agent/index';
import { MiddlewareError } from '../../src/core/index';

const never = new AbortController().signal;

/** A model that streams the events given, as they are. */
function streaming(events: readonly ModelStreamEvent[]): Model {
  return {
    async *stream() {
      yield* events;
    },
  };
}

/** The content of the message the terminal assembles from the events. */
async function assembled(events: readonly ModelStreamEvent[]): Promise<readonly ContentBlock[]> {
  const context: InvokeModelContext = { model: streaming(events), messages: [], systemPrompt: [], toolSpecs: [], invocationState: {} };
  let last: unknown;
  for await (const event of modelTerminal(context, { stage: InvokeModelStage, signal: never, state: createDraft({}) })) last = event;
  return (last as { message: { content: readonly ContentBlock[] } }).message.content;
}

const start = (toolUseId: string, name: string): ModelStreamEvent => ({ type: 'toolUseStart', toolUseId, name });

describe('modelTerminal', () => {
  describe('parallel tool uses whose input deltas interleave', () => {
    it('joins each tool use its own deltas, named by toolUseId', async () => {
      const content = await assembled([
        start('a', 'weather'),
        start('b', 'clock'),
        { type: 'toolUseDelta', toolUseId: 'b', input: '{"zone":' },
        { type: 'toolUseDelta', toolUseId: 'a', input: '{"city":' },
        { type: 'toolUseDelta', toolUseId: 'b', input: '"CET"}' },
        { type: 'toolUseDelta', toolUseId: 'a', input: '"Paris"}' },
      ]);
      expect(content).toEqual([
        { type: 'toolUse', toolUseId: 'a', name: 'weather', input: { city: 'Paris' } },
        { type: 'toolUse', toolUseId: 'b', name: 'clock', input: { zone: 'CET' } },
      ]);
    });

    it('finds a tool use by index (its position among the tool uses) when the delta has no id', async () => {
      const content = await assembled([
        { type: 'textDelta', text: 'Two calls.' },
        start('a', 'weather'),
        start('b', 'clock'),
        { type: 'toolUseDelta', index: 1, input: '{"zone":"CET"}' },
        { type: 'toolUseDelta', index: 0, input: '{"city":"Paris"}' },
      ]);
      expect(content).toEqual([
        { type: 'text', text: 'Two calls.' },
        { type: 'toolUse', toolUseId: 'a', name: 'weather', input: { city: 'Paris' } },
        { type: 'toolUse', toolUseId: 'b', name: 'clock', input: { zone: 'CET' } },
      ]);
    });

    it('reads the id before the index', async () => {
      const content = await assembled([
        start('a', 'f'),
        start('b', 'g'),
        { type: 'toolUseDelta', toolUseId: 'b', index: 0, input: '{"to":"b"}' },
      ]);
      expect(content).toEqual([
        { type: 'toolUse', toolUseId: 'a', name: 'f', input: {} },
        { type: 'toolUse', toolUseId: 'b', name: 'g', input: { to: 'b' } },
      ]);
    });

    it('extends a tool use after text that came between its deltas', async () => {
      const content = await assembled([
        start('a', 'f'),
        { type: 'toolUseDelta', toolUseId: 'a', input: '{"x":' },
        { type: 'textDelta', text: 'meanwhile' },
        { type: 'toolUseDelta', toolUseId: 'a', input: '1}' },
      ]);
      expect(content).toEqual([
        { type: 'toolUse', toolUseId: 'a', name: 'f', input: { x: 1 } },
        { type: 'text', text: 'meanwhile' },
      ]);
    });

    it('gives a repeated id the deltas after the later start', async () => {
      const content = await assembled([
        start('a', 'f'),
        { type: 'toolUseDelta', toolUseId: 'a', input: '{"n":1}' },
        start('a', 'g'),
        { type: 'toolUseDelta', toolUseId: 'a', input: '{"n":2}' },
      ]);
      expect(content).toEqual([
        { type: 'toolUse', toolUseId: 'a', name: 'f', input: { n: 1 } },
        { type: 'toolUse', toolUseId: 'a', name: 'g', input: { n: 2 } },
      ]);
    });

    it.each([
      ['an id no toolUseStart named', { type: 'toolUseDelta', toolUseId: 'nobody', input: '{"lost":1}' }],
      ['an index past the tool uses', { type: 'toolUseDelta', index: 1, input: '{"lost":1}' }],
      ['an index that is not an integer, after text', { type: 'toolUseDelta', index: 0.5, input: '{"lost":1}' }],
    ] as const)('ignores a delta naming %s', async (_name, delta) => {
      const content = await assembled([start('a', 'f'), { type: 'textDelta', text: 'then' }, delta]);
      expect(content).toEqual([
        { type: 'toolUse', toolUseId: 'a', name: 'f', input: {} },
        { type: 'text', text: 'then' },
      ]);
    });
  });

  describe('a delta naming no tool use', () => {
    it('extends the last block when it is a tool use, as before ids existed', async () => {
      const content = await assembled([start('a', 'f'), start('b', 'g'), { type: 'toolUseDelta', input: '{"to":"last"}' }]);
      expect(content).toEqual([
        { type: 'toolUse', toolUseId: 'a', name: 'f', input: {} },
        { type: 'toolUse', toolUseId: 'b', name: 'g', input: { to: 'last' } },
      ]);
    });
  });

  describe('a context without a model', () => {
    it('fails the first pull with ERR_INVALID_HANDLER on the terminal, saying what a model needs', async () => {
      const context = {
        model: undefined,
        messages: [],
        systemPrompt: [],
        toolSpecs: [],
        invocationState: {},
      } as unknown as InvokeModelContext;
      const error: unknown = await modelTerminal(context, { stage: InvokeModelStage, signal: never, state: undefined })
        .next()
        .then(
          () => 'no failure',
          (failure: unknown) => failure,
        );
      expect(MiddlewareError.isInstance(error)).toBe(true);
      const { code, stage, phase, handler, message } = error as MiddlewareError;
      expect({ code, stage, phase, handler, message }).toEqual({
        code: 'ERR_INVALID_HANDLER',
        stage: 'invokeModel',
        phase: 'terminal',
        handler: 'terminal',
        message:
          "[ERR_INVALID_HANDLER] InvokeModelStage: the model's stream must be a method stream(request, options), got undefined. Write it as an async generator method, `async *stream(request, options) { yield event }`.",
      });
    });
  });

  describe('an event of a known type that has a then method', () => {
    it('yields the event itself, unchanged, not what its then method gives (MW-100)', async () => {
      const event = {
        type: 'textDelta',
        text: 'kept',
        then: (resolve: (value: unknown) => void) => {
          resolve('not an event');
        },
      };
      // An iterator of its own: an async generator's yield would itself await the event.
      const answers = [
        { value: event, done: false },
        { value: undefined, done: true },
      ];
      const model = { stream: () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve(answers.shift()) }) }) };
      const context: InvokeModelContext = {
        model: model as unknown as Model,
        messages: [],
        systemPrompt: [],
        toolSpecs: [],
        invocationState: {},
      };
      const events = modelTerminal(context, { stage: InvokeModelStage, signal: never, state: undefined });
      const first = await events.next();
      expect(first.value).toBe(event);
      expect((await events.next()).value).toEqual({
        type: 'modelResult',
        message: { role: 'assistant', content: [{ type: 'text', text: 'kept' }] },
        stopReason: 'endTurn',
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      });
    });
  });
});
