import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { retry, timeout } from '../../src/middleware/index';
import type { TerminalCall } from '../../src/core/index';
import { runStage, scriptedTerminal, throws, waits } from '../../src/testing/index';
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
      const terminal = (input: { readonly prompt: string }, run: TerminalCall<undefined>): AsyncGenerator<string, void, undefined> => {
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
});

/** A terminal that yields `before`, then waits on a gate without looking at its signal, then yields 'late'. */
function stalled(before: readonly string[] = []): {
  readonly terminal: (context: unknown, run: TerminalCall<undefined>) => AsyncGenerator<string, void, undefined>;
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
