import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/index';
import { rateLimit } from '../../src/middleware/index';
import { runStage, scriptedTerminal } from '../../src/testing/index';
import { TextStage, manualTimers, settle } from './fixtures';

const context = { prompt: 'hi' };

/** Starts `count` invokes through `registry` and records the clock when each terminal call starts. */
function startMany(registry: MiddlewareRegistry, count: number, now: () => number, signal?: AbortSignal) {
  const starts: number[] = [];
  const terminal = async function* timed(): AsyncGenerator<string, void, undefined> {
    starts.push(now());
    yield 'done';
  };
  const runs = Array.from({ length: count }, () => registry.run(TextStage, context, terminal, signal === undefined ? {} : { signal }).catch((error: unknown) => error));
  return { starts, runs };
}

describe('rateLimit', () => {
  describe('minIntervalMs', () => {
    it('spaces the starts of invokes sharing one instance', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(TextStage.Wrap, rateLimit({ minIntervalMs: 100, timers }));
      const { starts, runs } = startMany(registry, 3, timers.now);
      await settle();
      expect(starts).toEqual([0]);
      await timers.advance(100);
      expect(starts).toEqual([0, 100]);
      await timers.advance(100);
      expect(starts).toEqual([0, 100, 200]);
      expect(await Promise.all(runs)).toEqual(['done', 'done', 'done']);
      expect(timers.pending()).toBe(0);
    });

    it('does not wait once the interval has passed', async () => {
      const timers = manualTimers();
      const limiter = rateLimit({ minIntervalMs: 100, timers });
      const first = await runStage(TextStage, { context, terminal: scriptedTerminal([['a']]), handlers: [[TextStage.Wrap, limiter]] });
      await timers.advance(150);
      const second = await runStage(TextStage, { context, terminal: scriptedTerminal([['b']]), handlers: [[TextStage.Wrap, limiter]] });
      expect([first.result, second.result]).toEqual(['a', 'b']);
      expect(timers.delays).toEqual([]);
    });
  });

  describe('tokensPerInterval', () => {
    it('lets a burst through, then one call per refilled token', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(TextStage.Wrap, rateLimit({ tokensPerInterval: 2, intervalMs: 1_000, timers }));
      const { starts, runs } = startMany(registry, 4, timers.now);
      await settle();
      expect(starts).toEqual([0, 0]);
      // One token comes back every 500 ms.
      await timers.advance(1_000);
      expect(starts).toEqual([0, 0, 500, 1_000]);
      await Promise.all(runs);
    });
  });

  describe('under abort', () => {
    it('ends the wait at once, clears the timer and gives the slot back', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(TextStage.Wrap, rateLimit({ minIntervalMs: 100, timers }));
      const controller = new AbortController();
      await registry.run(TextStage, context, scriptedTerminal([['first']]));
      const waiting = registry.run(TextStage, context, scriptedTerminal([['never']]), { signal: controller.signal }).catch((error: unknown) => error);
      await settle();
      expect(timers.pending()).toBe(1);
      controller.abort('gone');
      const error = await waiting;
      expect(MiddlewareError.isInstance(error) && [error.code, error.cause]).toEqual(['ERR_ABORTED', 'gone']);
      expect(timers.pending()).toBe(0);
      // The aborted caller's slot is free again: the next caller waits for the first caller's interval only.
      const { starts, runs } = startMany(registry, 1, timers.now);
      await settle();
      await timers.advance(100);
      expect(starts).toEqual([100]);
      await Promise.all(runs);
    });
  });

  describe('options', () => {
    it.each([
      { options: null, problem: 'options' },
      { options: { minIntervalMs: 0 }, problem: 'minIntervalMs' },
      { options: { tokensPerInterval: 0, intervalMs: 10 }, problem: 'tokensPerInterval' },
      { options: { tokensPerInterval: 1, intervalMs: -1 }, problem: 'intervalMs' },
      { options: { minIntervalMs: 10, timers: { now: () => 0 } }, problem: 'options.timers' },
    ])('rejects bad $problem with ERR_INVALID_OPTIONS', ({ options, problem }) => {
      expect(() => rateLimit(options as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'rateLimit', message: expect.stringContaining(problem) }));
    });
  });
});
