import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { rateLimit } from '../../src/middleware/index';
import { runStage, scriptedTerminal } from '../../src/testing/index';
import { TextStage, manualTimers, settle } from './fixtures';
import { startMany } from './rate-limit-callers';

const context = { prompt: 'hi' };

describe('rateLimit', () => {
  describe('minIntervalMs', () => {
    it('spaces the starts of invokes sharing one instance', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(TextStage.Wrap, rateLimit({ minIntervalMs: 100, timers }));
      const { starts, runs } = startMany(registry, 3, () => timers.now());
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
      const { starts, runs } = startMany(registry, 4, () => timers.now());
      await settle();
      expect(starts).toEqual([0, 0]);
      // One token comes back every 500 ms.
      await timers.advance(1_000);
      expect(starts).toEqual([0, 0, 500, 1_000]);
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
      expect(() => rateLimit(options as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'rateLimit', message: expect.stringContaining(problem) }),
      );
    });
  });
});
