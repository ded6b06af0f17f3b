import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { fallback } from '../../src/middleware/index';
import { runStage, scriptedTerminal, throws, waits } from '../../src/testing/index';
import { ModelStage, answer, chunk, settle, type ModelContext } from './fixtures';

const context: ModelContext = { prompt: 'hi', model: 'large' };

describe('fallback', () => {
  describe('when the original context fails', () => {
    it('tries each alternative in turn, contexts and functions of the original context', async () => {
      const terminal = scriptedTerminal([[throws(new Error('large down'))], [throws(new Error('medium down'))], [answer('from small')]]);
      const run = await runStage(ModelStage, {
        context,
        terminal,
        handlers: [
          [ModelStage.Wrap, fallback<ModelContext>([(original) => ({ ...original, model: 'medium' }), { prompt: 'hi', model: 'small' }])],
        ],
      });
      expect(run.events).toEqual([answer('from small')]);
      expect(terminal.calls.map((call) => call.context)).toEqual([
        context,
        { prompt: 'hi', model: 'medium' },
        { prompt: 'hi', model: 'small' },
      ]);
      expect(run.calls.fallback?.nextContexts).toEqual([context, { prompt: 'hi', model: 'medium' }, { prompt: 'hi', model: 'small' }]);
    });

    it('does not call next again when the first attempt succeeds', async () => {
      const terminal = scriptedTerminal([[chunk('a'), answer('ok')]]);
      const run = await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, fallback([{ prompt: 'x' }])]] });
      expect(run.events).toEqual([chunk('a'), answer('ok')]);
      expect(run.calls.fallback?.nextCalls).toBe(1);
    });

    it('holds a failed attempt back in commit mode and marks it in live mode', async () => {
      const down = new Error('down');
      const script = [[chunk('partial'), throws(down)], [answer('ok')]] as const;
      const commit = await runStage(ModelStage, {
        context,
        terminal: scriptedTerminal(script),
        handlers: [[ModelStage.Wrap, fallback([{ prompt: 'b' }])]],
      });
      const live = await runStage(ModelStage, {
        context,
        terminal: scriptedTerminal(script),
        handlers: [[ModelStage.Wrap, fallback([{ prompt: 'b' }], { stream: 'live' })]],
      });
      expect(commit.events).toEqual([answer('ok')]);
      expect(live.events).toEqual([
        chunk('partial'),
        { type: 'attempt-boundary', handler: 'fallback', failedAttempt: 1, nextAttempt: 2, error: down },
        answer('ok'),
      ]);
    });
  });

  describe('when every alternative fails', () => {
    it('throws the last error unchanged', async () => {
      const last = new Error('small down');
      const terminal = scriptedTerminal([[throws(new Error('large down'))], [throws(last)]]);
      const run = await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, fallback([{ prompt: 'b' }])]] });
      expect(run.error).toBe(last);
    });

    it('stops when fallbackOn declines', async () => {
      const invalid = new Error('invalid request');
      const terminal = scriptedTerminal([[throws(invalid)], [answer('unused')]]);
      const run = await runStage(ModelStage, {
        context,
        terminal,
        handlers: [[ModelStage.Wrap, fallback([{ prompt: 'b' }], { fallbackOn: () => false })]],
      });
      expect(run.error).toBe(invalid);
      expect(terminal.calls).toHaveLength(1);
    });
  });

  describe('under abort', () => {
    it('does not move on to an alternative', async () => {
      const controller = new AbortController();
      const terminal = scriptedTerminal([[waits(Infinity)], [answer('unused')]]);
      const running = runStage(ModelStage, {
        context,
        terminal,
        signal: controller.signal,
        handlers: [[ModelStage.Wrap, fallback([{ prompt: 'b' }])]],
      });
      await settle();
      controller.abort('stop');
      const run = await running;
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_ABORTED');
      expect((run.error as Error).cause).toBe('stop');
      expect(terminal.calls).toHaveLength(1);
      expect(run.calls.fallback?.finallyRan).toBe(true);
    });
  });

  describe('options', () => {
    it.each([
      { alternatives: 'backup', options: {}, problem: 'alternatives' },
      { alternatives: [], options: null, problem: 'options must be' },
      { alternatives: [], options: { fallbackOn: 1 }, problem: 'fallbackOn' },
      { alternatives: [], options: { stream: { mode: 'live' } }, problem: 'stream' },
    ])('rejects bad $problem with ERR_INVALID_OPTIONS', ({ alternatives, options, problem }) => {
      expect(() => fallback(alternatives as never, options as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'fallback', message: expect.stringContaining(problem) }),
      );
    });
  });
});
