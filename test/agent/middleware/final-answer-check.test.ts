import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../../src/core/index';
import {
  Agent,
  InvokeModelStage,
  checkFinalAnswer,
  finalAnswerFeedback,
  type FinalAnswerCheckOptions,
  type Message,
} from '../../../src/agent/index';
import { ScriptedModel, ScriptedTool, textTurn, toolUseTurn } from '../../../src/testing/index';
import { collect, user } from '../fixtures';

const textOf = (message: Message): string => message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
const mustStartWithOk = (message: Message): void => {
  if (!textOf(message).startsWith('OK')) throw new Error('say OK first');
};

describe('checkFinalAnswer', () => {
  describe('with options it cannot use', () => {
    it.each<[string, unknown]>([
      ['no options', undefined],
      ['no check', {}],
      ['a feedback that is not a function', { check: mustStartWithOk, feedback: 'try again' }],
      ['a maxAttempts of 0', { check: mustStartWithOk, maxAttempts: 0 }],
      ['a critical that is not a boolean', { check: mustStartWithOk, critical: 'yes' }],
      ['an unknown stream', { check: mustStartWithOk, stream: 'later' }],
    ])('throws ERR_INVALID_OPTIONS at once for %s', (_label, options) => {
      let error: unknown;
      try {
        checkFinalAnswer(options as FinalAnswerCheckOptions);
      } catch (caught) {
        error = caught;
      }
      expect([(error as MiddlewareError).code, (error as MiddlewareError).handler]).toEqual(['ERR_INVALID_OPTIONS', 'checkFinalAnswer']);
    });
  });

  describe('its name', () => {
    it('is checkFinalAnswer', () => {
      expect(checkFinalAnswer({ check: mustStartWithOk }).name).toEqual('checkFinalAnswer');
    });
  });

  describe('finalAnswerFeedback', () => {
    it.each<[unknown, string]>([
      [new Error('too long'), 'Your answer was rejected: too long. Answer again.'],
      ['not JSON', 'Your answer was rejected: not JSON. Answer again.'],
      [{ message: 7 }, 'Your answer was rejected: [object Object]. Answer again.'],
    ])('tells the model why, for %s', (error, text) => {
      expect(finalAnswerFeedback(error)).toEqual(user(text));
    });
  });

  describe('around a model that asks for tools, then answers', () => {
    it('checks only the final answer, and gives a feedback of its own to the model', async () => {
      const checked: string[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(
        InvokeModelStage.Wrap,
        checkFinalAnswer({
          check: (message, _context, attempt) => {
            checked.push(`${attempt}: ${textOf(message)}`);
            mustStartWithOk(message);
          },
          feedback: (error, rejected) => user(`"${textOf(rejected)}" failed: ${(error as Error).message}`),
        }),
      );
      const model = new ScriptedModel([
        toolUseTurn([{ name: 'lookup', input: {} }], { text: 'Looking.' }),
        textTurn('Maybe.'),
        textTurn('OK.'),
      ]);
      const agent = new Agent({ model, registry, tools: [new ScriptedTool({ name: 'lookup' })] });
      await agent.invoke('q');
      expect([checked, model.calls[2]?.request.messages.slice(-2)]).toEqual([
        ['1: Maybe.', '2: OK.'],
        [{ role: 'assistant', content: [{ type: 'text', text: 'Maybe.' }] }, user('"Maybe." failed: say OK first')],
      ]);
    });
  });

  describe('with an error of the inner chain', () => {
    it('passes the very error through without calling the model again', async () => {
      const failure = new Error('model down');
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Wrap, checkFinalAnswer({ check: mustStartWithOk }));
      const model = new ScriptedModel([{ events: [], error: failure }, textTurn('OK')]);
      await expect(new Agent({ model, registry }).invoke('q')).rejects.toBe(failure);
      expect(model.calls.length).toEqual(1);
    });
  });

  describe('with stream: live', () => {
    it('lets a rejected answer stream and marks the new attempt with a boundary event', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(
        InvokeModelStage.Wrap,
        checkFinalAnswer({
          check: mustStartWithOk,
          stream: { mode: 'live', boundary: (info) => ({ type: 'retrying', failedAttempt: info.failedAttempt }) },
        }),
      );
      const events = await collect(new Agent({ model: new ScriptedModel([textTurn('No'), textTurn('OK')]), registry }).stream('q'));
      expect(events.map((event) => (event.type === 'textDelta' ? `text ${event.text}` : event.type))).toEqual([
        'messageStart',
        'text No',
        'messageStop',
        'modelResult',
        'retrying',
        'messageStart',
        'text OK',
        'messageStop',
        'modelResult',
        'agentResult',
      ]);
    });
  });

  describe('exhausted', () => {
    it('fails with every rejection in the cause', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(InvokeModelStage.Wrap, checkFinalAnswer({ check: mustStartWithOk, maxAttempts: 2 }));
      const error = (await new Agent({ model: new ScriptedModel([textTurn('No'), textTurn('Nope')]), registry }).invoke('q').then(
        () => undefined,
        (caught: unknown) => caught,
      )) as MiddlewareError;
      expect([error.code, (error.cause as AggregateError).errors.map((rejection: Error) => rejection.message)]).toEqual([
        'ERR_MIDDLEWARE_FAILED',
        ['say OK first', 'say OK first'],
      ]);
    });
  });
});
