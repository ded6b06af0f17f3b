import { describe, expect, it, vi } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/index';
import { retry, timeout } from '../../src/middleware/index';
import type { TerminalRun } from '../../src/index';
import { runStage, scriptedTerminal, throws, waits } from '../../src/testing/index';
import { MAX_TIMER_DELAY_MS } from '../../src/util/timers';
import { ModelStage, TextStage, answer, chunk, manualTimers, settle } from './fixtures';

const context = { prompt: 'hi' };

describe('timeout', () => {
  describe('when the inner chain finishes in time', () => {
    it('forwards every event and clears its timer', async () => {
      const timers = manualTimers();
      const terminal = scriptedTerminal([[chunk('a'), answer('ok')]]);
      const run = await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, timeout(1_000, { timers })]] });
      expect(run.events).toEqual([chunk('a'), answer('ok')]);
      // One timer per pull, each for the time left to the deadline (the clock did not move).
      expect(timers.delays).toEqual([1_000, 1_000, 1_000]);
      expect(timers.pending()).toBe(0);
    });
  });

  describe('when the inner chain throws before the deadline', () => {
    it('passes the error on unchanged and clears its timer', async () => {
      const timers = manualTimers();
      const overloaded = new Error('overloaded');
      const run = await runStage(TextStage, {
        context,
        terminal: scriptedTerminal([['a', throws(overloaded)]]),
        handlers: [[TextStage.Wrap, timeout(1_000, { timers })]],
      });
      expect([run.events, run.error]).toEqual([['a'], overloaded]);
      expect(run.error).toBe(overloaded);
      expect(timers.pending()).toBe(0);
    });
  });

  describe('when the deadline passes', () => {
    it('aborts the inner signal with the timeout error and throws ERR_TIMEOUT naming stage and handler', async () => {
      const timers = manualTimers();
      const terminal = scriptedTerminal([[chunk('a'), waits(Infinity)]]);
      const running = runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, timeout(1_000, { timers })]] });
      await settle();
      await timers.advance(999);
      expect(terminal.calls[0]?.signal.aborted).toBe(false);
      await timers.advance(1);
      const run = await running;
      const error = run.error as MiddlewareError;
      expect([error.code, error.stage, error.phase, error.handler]).toEqual(['ERR_TIMEOUT', 'model', 'wrap', 'timeout']);
      expect(error.message).toContain('1000 ms');
      expect(terminal.calls[0]?.signal.reason).toBe(error);
      expect(run.events).toEqual([chunk('a')]);
      expect(timers.pending()).toBe(0);
    });

    it('throws ERR_TIMEOUT at the deadline while the terminal is stuck in an await that ignores its signal', async () => {
      const timers = manualTimers();
      const stall = stalled();
      const seen: string[] = [];
      const running = runStage(TextStage, {
        context,
        terminal: stall.terminal,
        handlers: [
          [TextStage.Wrap, observer(seen)],
          [TextStage.Wrap, timeout(50, { timers })],
        ],
      });
      await settle();
      await timers.advance(50);
      await settle();
      expect(seen).toEqual(['caught ERR_TIMEOUT']);
      expect(stall.log).toEqual(['waiting']);
      stall.release();
      const run = await running;
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_TIMEOUT');
      expect(run.events).toEqual([]);
      // The stuck call is closed by the invoke once its await settles; its late event goes nowhere.
      expect(stall.log).toEqual(['waiting', 'released', 'finally']);
      expect(timers.pending()).toBe(0);
    });

    it('drops an event that arrives in the promise turn the deadline passes', async () => {
      let fire: () => void = () => undefined;
      const timers = { ...manualTimers(), setTimeout: (callback: () => void) => ((fire = callback), 1) };
      // An iterator of our own, so the order of promise jobs is exact: its event settles the pull
      // one job before the deadline fires, and the timeout resumes one job after.
      const terminal = (): AsyncGenerator<string, void, undefined> => {
        const iterator = {
          next: () => {
            const pulled = Promise.resolve({ value: 'late', done: false as const });
            void pulled.then(() => {
              queueMicrotask(() => {
                fire();
              });
            });
            return pulled;
          },
          return: () => Promise.resolve({ value: undefined, done: true as const }),
          [Symbol.asyncIterator]: () => iterator,
        };
        return iterator as unknown as AsyncGenerator<string, void, undefined>;
      };
      const run = await runStage(TextStage, { context, terminal, handlers: [[TextStage.Wrap, timeout(50, { timers })]] });
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_TIMEOUT');
      expect(run.events).toEqual([]);
    });

    it('drops an event whose pull settles at the deadline by the clock before the timer fires', async () => {
      let clock = 0;
      const timers = { now: () => clock, setTimeout: () => 1, clearTimeout: () => undefined };
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const terminal = async function* late(): AsyncGenerator<string, void, undefined> {
        await gate;
        yield 'late';
      };
      const running = runStage(TextStage, { context, terminal, handlers: [[TextStage.Wrap, timeout(50, { timers })]] });
      await settle();
      clock = 50;
      release();
      const run = await running;
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_TIMEOUT');
      expect(run.events).toEqual([]);
    });

    it('throws at the next pull without pulling the inner chain when the deadline passed while the consumer held an event', async () => {
      const timers = manualTimers();
      const stall = stalled(['a']);
      const registry = new MiddlewareRegistry();
      registry.add(TextStage.Wrap, timeout(50, { timers }));
      const events = registry.invoke(TextStage, context, stall.terminal);
      expect(await events.next()).toEqual({ value: 'a', done: false });
      await timers.advance(50);
      await expect(events.next()).rejects.toMatchObject({ code: 'ERR_TIMEOUT', handler: 'timeout' });
      expect(stall.log).toEqual(['finally']);
      expect(timers.pending()).toBe(0);
    });

    it('rethrows the abort reason of its own run.signal at the deadline when that signal aborted first and the inner chain is stuck', async () => {
      const timers = manualTimers();
      const stall = stalled();
      const seen: string[] = [];
      const local = new AbortController();
      const aborting = async function* aborting(
        input: { readonly prompt: string },
        next: (context?: { readonly prompt: string }, options?: { signal?: AbortSignal }) => AsyncGenerator<string, void, undefined>,
      ): AsyncGenerator<string, void, undefined> {
        try {
          yield* next(input, { signal: local.signal });
        } catch (error) {
          seen.push(`caught ${String(error)}`);
          yield 'recovered';
        }
      };
      const running = runStage(TextStage, {
        context,
        terminal: stall.terminal,
        handlers: [
          [TextStage.Wrap, aborting],
          [TextStage.Wrap, timeout(50, { timers })],
        ],
      });
      await settle();
      local.abort('outer reason');
      await settle();
      expect([seen, stall.log]).toEqual([[], ['waiting']]);
      await timers.advance(50);
      await settle();
      expect(seen).toEqual(['caught outer reason']);
      stall.release();
      const run = await running;
      expect(run.result).toBe('recovered');
      expect(timers.pending()).toBe(0);
    });

    it('lets an outer retry run a fresh attempt', async () => {
      const timers = manualTimers();
      const terminal = scriptedTerminal([[waits(Infinity)], ['second']]);
      const running = runStage(TextStage, {
        context,
        terminal,
        handlers: [
          [TextStage.Wrap, retry({ backoff: () => 0 })],
          [TextStage.Wrap, timeout(100, { timers })],
        ],
      });
      await settle();
      await timers.advance(100);
      const run = await running;
      expect(run.result).toBe('second');
      expect(terminal.calls.map((call) => call.outcome)).toEqual(['threw', 'completed']);
      expect(run.calls.timeout?.activations).toBe(2);
      expect(timers.pending()).toBe(0);
    });

    it('lets an outer retry start its next attempt at the deadline while the stuck attempt still waits', async () => {
      const timers = manualTimers();
      const stall = stalled();
      let calls = 0;
      const terminal = (input: { readonly prompt: string }, run: TerminalRun<undefined>): AsyncGenerator<string, void, undefined> => {
        calls++;
        return calls === 1 ? stall.terminal(input, run) : scriptedTerminal([['second']])(input, run);
      };
      const registry = new MiddlewareRegistry();
      registry.add(TextStage.Wrap, retry({ backoff: () => 0 }));
      registry.add(TextStage.Wrap, timeout(100, { timers }));
      const events = registry.invoke(TextStage, context, terminal);
      const first = events.next();
      await settle();
      await timers.advance(100);
      expect(await first).toEqual({ value: 'second', done: false });
      expect([calls, stall.log]).toEqual([2, ['waiting']]);
      const end = events.next();
      stall.release();
      expect(await end).toEqual({ value: undefined, done: true });
      expect(stall.log).toEqual(['waiting', 'released', 'finally']);
      expect(timers.pending()).toBe(0);
    });
  });

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

/** A terminal that yields `before`, then waits on a gate without looking at its signal, then yields 'late'. */
function stalled(before: readonly string[] = []): {
  readonly terminal: (context: unknown, run: TerminalRun<undefined>) => AsyncGenerator<string, void, undefined>;
  readonly log: string[];
  release(): void;
} {
  const log: string[] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const terminal = async function* stubborn(): AsyncGenerator<string, void, undefined> {
    try {
      yield* before;
      log.push('waiting');
      await gate;
      log.push('released');
      yield 'late';
    } finally {
      log.push('finally');
    }
  };
  return {
    terminal,
    log,
    release: () => {
      release();
    },
  };
}

/** A Wrap handler that records the code of an error passing through it, then rethrows it. */
function observer(seen: string[]) {
  return async function* observer<TContext, TEvent>(
    input: TContext,
    next: (context?: TContext) => AsyncGenerator<TEvent, void, undefined>,
  ): AsyncGenerator<TEvent, void, undefined> {
    try {
      yield* next(input);
    } catch (error) {
      seen.push(`caught ${MiddlewareError.isInstance(error) ? error.code : String(error)}`);
      throw error;
    }
  };
}
