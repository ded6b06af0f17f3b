import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/index';
import { sleep, systemTimers } from '../../src/middleware/index';
import { manualTimers, settle } from './fixtures';

const waiter = { stage: 'model', handler: 'retry' };

describe('sleep', () => {
  describe('without an abort', () => {
    it('resolves after the delay on its clock', async () => {
      const timers = manualTimers();
      let done = false;
      const waiting = sleep(100, new AbortController().signal, waiter, timers).then(() => {
        done = true;
      });
      await timers.advance(99);
      expect(done).toBe(false);
      await timers.advance(1);
      await waiting;
      expect([done, timers.pending()]).toEqual([true, 0]);
    });

    it('resolves at once without a timer for a delay of 0 or less', async () => {
      const timers = manualTimers();
      await sleep(0, new AbortController().signal, waiter, timers);
      await sleep(-5, new AbortController().signal, waiter, timers);
      expect(timers.delays).toEqual([]);
    });

    it('waits on the runtime clock by default', async () => {
      const started = systemTimers.now();
      await sleep(5, new AbortController().signal, waiter);
      expect(systemTimers.now() - started).toBeGreaterThanOrEqual(4);
    });
  });

  describe('under abort', () => {
    it('rejects at once with ERR_ABORTED naming the waiter when already aborted', async () => {
      const controller = new AbortController();
      controller.abort('gone');
      const error = await sleep(100, controller.signal, waiter, manualTimers()).catch((caught: unknown) => caught);
      expect(MiddlewareError.isInstance(error) && [error.code, error.stage, error.phase, error.handler, error.cause]).toEqual(['ERR_ABORTED', 'model', 'wrap', 'retry', 'gone']);
    });

    it('rejects when the signal aborts during the wait and clears the timer', async () => {
      const timers = manualTimers();
      const controller = new AbortController();
      const waiting = sleep(1_000, controller.signal, waiter, timers).catch((caught: unknown) => caught);
      await settle();
      expect(timers.pending()).toBe(1);
      controller.abort('stop');
      const error = await waiting;
      expect(MiddlewareError.isInstance(error) && error.cause).toBe('stop');
      expect(timers.pending()).toBe(0);
    });
  });
});
