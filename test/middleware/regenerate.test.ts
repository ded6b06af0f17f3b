import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { regenerate } from '../../src/middleware/index';
import { runStage, scriptedTerminal, throws, waits } from '../../src/testing/index';
import { ModelStage, TextStage, answer, chunk, settle, type Answer, type ModelContext, type ModelEvent } from './fixtures';

const context: ModelContext = { prompt: 'json please' };

/** Accepts only results whose text parses as JSON. */
function mustBeJson(result: ModelEvent): void {
  JSON.parse((result as Answer).text);
}

const withFeedback = (previous: ModelContext, error: unknown): ModelContext => ({
  ...previous,
  prompt: `${previous.prompt} | ${(error as Error).message}`,
});

describe('regenerate', () => {
  describe('when check rejects a result and a later attempt passes', () => {
    it('runs again with the feedback context and delivers only the accepted attempt (commit)', async () => {
      const terminal = scriptedTerminal([
        [chunk('x'), answer('not json')],
        [chunk('y'), answer('{"a":1}')],
      ]);
      const run = await runStage(ModelStage, {
        context,
        terminal,
        handlers: [[ModelStage.Wrap, regenerate({ check: mustBeJson, feedback: withFeedback })]],
      });
      expect(run.events).toEqual([chunk('y'), answer('{"a":1}')]);
      expect(terminal.calls).toHaveLength(2);
      const rejection = (() => {
        try {
          JSON.parse('not json');
        } catch (error) {
          return (error as Error).message;
        }
        return 'JSON.parse accepted it';
      })();
      expect(terminal.calls[1]?.context).toEqual({ prompt: `json please | ${rejection}` });
    });

    it('feeds each rejection into the context of the attempt it rejected', async () => {
      const terminal = scriptedTerminal([[answer('1')], [answer('2')], [answer('3')]]);
      const check = (result: ModelEvent): void => {
        if ((result as Answer).text !== '3') throw new Error(`no ${(result as Answer).text}`);
      };
      const run = await runStage(ModelStage, {
        context: { prompt: 'p' },
        terminal,
        handlers: [[ModelStage.Wrap, regenerate({ check, feedback: withFeedback })]],
      });
      expect(run.result).toEqual(answer('3'));
      expect(terminal.calls.map((call) => (call.context as ModelContext).prompt)).toEqual(['p', 'p | no 1', 'p | no 1 | no 2']);
    });

    it('marks the rejected attempt with a boundary event in live mode', async () => {
      const rejection = new Error('too short');
      const terminal = scriptedTerminal([[chunk('a'), answer('short')], [answer('long enough')]]);
      const check = (result: ModelEvent): void => {
        if ((result as Answer).text === 'short') throw rejection;
      };
      const run = await runStage(ModelStage, {
        context,
        terminal,
        handlers: [[ModelStage.Wrap, regenerate({ check, feedback: (previous: ModelContext) => previous, stream: 'live' })]],
      });
      expect(run.events).toEqual([
        chunk('a'),
        answer('short'),
        { type: 'attempt-boundary', handler: 'regenerate', failedAttempt: 1, nextAttempt: 2, error: rejection },
        answer('long enough'),
      ]);
    });

    it('awaits an async check and an async feedback', async () => {
      const terminal = scriptedTerminal([['bad'], ['good']]);
      const run = await runStage(TextStage, {
        context: { prompt: 'p' },
        terminal,
        handlers: [
          [
            TextStage.Wrap,
            regenerate({
              check: async (result: string) => {
                if (result === 'bad') throw new Error('bad');
              },
              feedback: async (previous: { prompt: string }) => ({ prompt: `${previous.prompt}!` }),
            }),
          ],
        ],
      });
      expect(run.result).toBe('good');
      expect(terminal.calls.map((call) => call.context)).toEqual([{ prompt: 'p' }, { prompt: 'p!' }]);
    });
  });

  describe('when every attempt is rejected', () => {
    it('throws ERR_MIDDLEWARE_FAILED with every rejection in an AggregateError when critical', async () => {
      const rejections = [new Error('r1'), new Error('r2'), new Error('r3')];
      let index = 0;
      const terminal = scriptedTerminal([[answer('x')]]);
      const run = await runStage(ModelStage, {
        context,
        terminal,
        handlers: [
          [
            ModelStage.Wrap,
            regenerate({
              check: () => {
                throw rejections[index++];
              },
              feedback: (previous: ModelContext) => previous,
              maxAttempts: 3,
            }),
          ],
        ],
      });
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_MIDDLEWARE_FAILED');
      const error = run.error as MiddlewareError;
      expect([error.stage, error.phase, error.handler]).toEqual(['model', 'wrap', 'regenerate']);
      expect(error.cause).toBeInstanceOf(AggregateError);
      expect((error.cause as AggregateError).errors).toEqual(rejections);
      expect((error.cause as AggregateError).errors[0]).toBe(rejections[0]);
      expect(terminal.calls).toHaveLength(3);
    });

    it('accepts the last result when not critical', async () => {
      const terminal = scriptedTerminal([
        [chunk('a'), answer('first')],
        [chunk('b'), answer('last')],
      ]);
      const run = await runStage(ModelStage, {
        context,
        terminal,
        handlers: [
          [
            ModelStage.Wrap,
            regenerate({
              check: () => {
                throw new Error('never good');
              },
              feedback: (previous: ModelContext) => previous,
              maxAttempts: 2,
              critical: false,
            }),
          ],
        ],
      });
      expect(run.error).toBeUndefined();
      expect(run.events).toEqual([chunk('b'), answer('last')]);
    });
  });

  describe('when the inner chain throws', () => {
    it('passes the error through unchanged without regenerating', async () => {
      const broken = new Error('network');
      const terminal = scriptedTerminal([[throws(broken)], [answer('unused')]]);
      const run = await runStage(ModelStage, {
        context,
        terminal,
        handlers: [[ModelStage.Wrap, regenerate({ check: mustBeJson, feedback: withFeedback })]],
      });
      expect(run.error).toBe(broken);
      expect(terminal.calls).toHaveLength(1);
    });
  });

  describe('when the attempt has no result', () => {
    it.each([
      { name: 'no event', script: [[]] },
      { name: 'a last event failing isResult', script: [[chunk('only a chunk')]] },
    ])('does not call check and lets the core report ERR_NO_RESULT ($name)', async ({ script }) => {
      const checked: unknown[] = [];
      const run = await runStage(ModelStage, {
        context,
        terminal: scriptedTerminal(script),
        handlers: [[ModelStage.Wrap, regenerate({ check: (result: ModelEvent) => checked.push(result), feedback: withFeedback })]],
      });
      expect(checked).toEqual([]);
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_NO_RESULT');
    });
  });

  describe('under abort', () => {
    it('stops at once with ERR_ABORTED and no further attempt', async () => {
      const controller = new AbortController();
      const terminal = scriptedTerminal([[chunk('a'), waits(Infinity)], [answer('unused')]]);
      const running = runStage(ModelStage, {
        context,
        terminal,
        signal: controller.signal,
        handlers: [[ModelStage.Wrap, regenerate({ check: mustBeJson, feedback: withFeedback })]],
      });
      await settle();
      controller.abort('bye');
      const run = await running;
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_ABORTED');
      expect(terminal.calls).toHaveLength(1);
    });

    it('does not regenerate when the signal aborted while check ran', async () => {
      const controller = new AbortController();
      const terminal = scriptedTerminal([[answer('x')], [answer('unused')]]);
      const check = (): never => {
        controller.abort('during check');
        throw new Error('rejected');
      };
      const run = await runStage(ModelStage, {
        context,
        terminal,
        signal: controller.signal,
        handlers: [[ModelStage.Wrap, regenerate({ check, feedback: withFeedback })]],
      });
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_ABORTED');
      expect(terminal.calls).toHaveLength(1);
    });
  });

  describe('options', () => {
    it.each([
      { options: null, problem: 'options' },
      { options: { feedback: () => ({}) }, problem: 'check' },
      { options: { check: (): undefined => undefined }, problem: 'feedback' },
      { options: { check: (): undefined => undefined, feedback: () => ({}), maxAttempts: 0 }, problem: 'maxAttempts' },
    ])('rejects bad $problem with ERR_INVALID_OPTIONS', ({ options, problem }) => {
      expect(() => regenerate(options as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'regenerate', message: expect.stringContaining(problem) }),
      );
    });
  });
});
