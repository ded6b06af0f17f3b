import { describe, expect, it, vi } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { timeout } from '../../src/middleware/index';
import { runStage, scriptedTerminal, waits } from '../../src/testing/index';
import { MAX_TIMER_DELAY_MS } from '../../src/util/timers';
import { ModelStage, TextStage, answer, chunk, manualTimers, settle } from './fixtures';

const context = { prompt: 'hi' };

describe('timeout', () => {
  describe('a deadline of 2^31 ms or more', () => {
    // JavaScript timers fire such a delay after about 1 ms: timeout(2 ** 31) used to throw ERR_TIMEOUT at once.
    it('is honoured in full, waited in slices of at most 2^31 - 1 ms', async () => {
      const timers = manualTimers();
      const terminal = scriptedTerminal([[waits(Infinity)]]);
      const running = runStage(TextStage, {
        context,
        terminal,
        handlers: [[TextStage.Wrap, timeout(MAX_TIMER_DELAY_MS + 1_000, { timers })]],
      });
      await settle();
      await timers.advance(MAX_TIMER_DELAY_MS + 999);
      expect([terminal.calls[0]?.signal.aborted, timers.delays]).toEqual([false, [MAX_TIMER_DELAY_MS, 1_000]]);
      await timers.advance(1);
      const run = await running;
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_TIMEOUT');
      expect(timers.pending()).toBe(0);
    });

    it('does not expire early on the runtime timers', async () => {
      vi.useFakeTimers();
      try {
        const terminal = scriptedTerminal([[waits(10), 'done']]);
        const running = runStage(TextStage, { context, terminal, handlers: [[TextStage.Wrap, timeout(2 ** 31)]] });
        await vi.advanceTimersByTimeAsync(10);
        const run = await running;
        expect([run.result, run.error]).toEqual(['done', undefined]);
        expect(vi.getTimerCount()).toBe(0);
      } finally {
        vi.useRealTimers();
      }
    });
  });

  describe('under abort', () => {
    it('reports ERR_ABORTED when the outer signal fires first, and clears its timer', async () => {
      const timers = manualTimers();
      const controller = new AbortController();
      const terminal = scriptedTerminal([[waits(Infinity)]]);
      const running = runStage(TextStage, {
        context,
        terminal,
        signal: controller.signal,
        handlers: [[TextStage.Wrap, timeout(1_000, { timers })]],
      });
      await settle();
      controller.abort('user');
      const run = await running;
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_ABORTED');
      expect((run.error as Error).cause).toBe('user');
      expect(timers.pending()).toBe(0);
    });

    it('keeps an inner timeout from claiming an outer timeout', async () => {
      const timers = manualTimers();
      const terminal = scriptedTerminal([[waits(Infinity)]]);
      const running = runStage(TextStage, {
        context,
        terminal,
        handlers: [
          [TextStage.Wrap, timeout(100, { timers }), { name: 'outer' }],
          [TextStage.Wrap, timeout(1_000, { timers }), { name: 'inner' }],
        ],
      });
      await settle();
      await timers.advance(100);
      const run = await running;
      expect((run.error as MiddlewareError).handler).toBe('outer');
      expect(timers.pending()).toBe(0);
    });

    it('closes the inner chain and leaves no timer when the consumer stops early', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(ModelStage.Wrap, timeout(1_000, { timers }));
      const terminal = scriptedTerminal([[chunk('a'), chunk('b'), answer('c')]]);
      const events = registry.invoke(ModelStage, context, terminal);
      await events.next();
      await events.return();
      expect([terminal.calls.map((call) => call.outcome), timers.pending()]).toEqual([['closed'], 0]);
    });
  });

  describe('when the invoke settles', () => {
    it('leaves no timer behind: a timeout layer another handler left in the middle of a pull is closed, and the invoke waits for that', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      const terminal = scriptedTerminal([[waits(Infinity)]]);
      const leavesAPullPending = async function* leavesAPullPending(
        input: { readonly prompt: string },
        next: (context?: { readonly prompt: string }) => AsyncGenerator<string, void, undefined>,
      ): AsyncGenerator<string, void, undefined> {
        void next(input)
          .next()
          .catch(() => undefined);
        yield 'answered without it';
      };
      registry.add(TextStage.Wrap, leavesAPullPending);
      registry.add(TextStage.Wrap, timeout(100, { timers }));
      let settled = false;
      const result = registry.run(TextStage, context, terminal).finally(() => {
        settled = true;
      });
      await settle();
      expect([settled, timers.pending()]).toEqual([false, 1]);
      await timers.advance(100);
      expect(await result).toBe('answered without it');
      expect([timers.pending(), terminal.calls.map((call) => call.outcome)]).toEqual([0, ['threw']]);
    });
  });

  describe('while the consumer holds an event', () => {
    // The timer used to stay armed until the deadline, keeping an abandoned invoke's whole chain alive with it.
    it('holds no timer, so an abandoned invoke keeps nothing alive', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(ModelStage.Wrap, timeout(1_000, { timers }));
      const terminal = scriptedTerminal([[chunk('a'), waits(Infinity)]]);
      const events = registry.invoke(ModelStage, context, terminal);
      expect(await events.next()).toEqual({ value: chunk('a'), done: false });
      expect([timers.pending(), terminal.calls.map((call) => call.outcome)]).toEqual([0, ['running']]);
    });

    it('holds no timer of the runtime either', async () => {
      vi.useFakeTimers();
      try {
        const registry = new MiddlewareRegistry();
        registry.add(ModelStage.Wrap, timeout(1_000));
        const events = registry.invoke(ModelStage, context, scriptedTerminal([[chunk('a'), waits(Infinity)]]));
        await events.next();
        expect(vi.getTimerCount()).toBe(0);
        await events.return();
      } finally {
        vi.useRealTimers();
      }
    });

    it('arms the next pull for the time left to the deadline', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(ModelStage.Wrap, timeout(100, { timers }));
      const terminal = scriptedTerminal([[chunk('a'), waits(Infinity)]]);
      const events = registry.invoke(ModelStage, context, terminal);
      await events.next();
      await timers.advance(30);
      const pulled = events.next().catch((error: unknown) => error);
      await settle();
      expect([timers.delays, terminal.calls[0]?.signal.aborted]).toEqual([[100, 70], false]);
      await timers.advance(70);
      const error = await pulled;
      expect(MiddlewareError.isInstance(error) && [error.code, terminal.calls[0]?.signal.reason === error]).toEqual(['ERR_TIMEOUT', true]);
      expect(timers.pending()).toBe(0);
    });

    it('aborts the inner signal and throws ERR_TIMEOUT at the next pull when the deadline passed meanwhile', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(ModelStage.Wrap, timeout(100, { timers }));
      const terminal = scriptedTerminal([[chunk('a'), answer('late')]]);
      const events = registry.invoke(ModelStage, context, terminal);
      await events.next();
      await timers.advance(100);
      expect(terminal.calls[0]?.signal.aborted).toBe(false);
      const error = await events.next().catch((caught: unknown) => caught);
      expect(MiddlewareError.isInstance(error) && [error.code, error.handler]).toEqual(['ERR_TIMEOUT', 'timeout']);
      expect([terminal.calls[0]?.signal.reason, terminal.calls[0]?.events, terminal.calls[0]?.outcome]).toEqual([error, 1, 'closed']);
      expect(timers.pending()).toBe(0);
    });
  });

  describe('options', () => {
    it.each([0, -5, Number.NaN, Infinity, '100'])('rejects %s ms with ERR_INVALID_OPTIONS', (ms) => {
      expect(() => timeout(ms as number)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'timeout' }));
    });

    it.each([
      { options: null, problem: 'options must be' },
      { options: { timers: { setTimeout: () => 1 } }, problem: 'options.timers' },
    ])('rejects bad $problem with ERR_INVALID_OPTIONS', ({ options, problem }) => {
      expect(() => timeout(100, options as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'timeout', message: expect.stringContaining(problem) }),
      );
    });
  });
});
