import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { sleep, untilAborted } from '../../src/middleware/sleep';
import { MAX_TIMER_DELAY_MS, systemTimers } from '../../src/util/timers';
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

    it('does not wait for a delay of NaN', async () => {
      const timers = manualTimers();
      await sleep(Number.NaN, new AbortController().signal, waiter, timers);
      expect(timers.delays).toEqual([]);
    });

    // JavaScript timers fire a delay of 2^31 ms or more after about 1 ms, so one setTimeout would end the wait at once.
    it('waits a delay of 2^31 ms or more in full, in slices of at most 2^31 - 1 ms', async () => {
      const timers = manualTimers();
      let done = false;
      const waiting = sleep(2 * MAX_TIMER_DELAY_MS + 10, new AbortController().signal, waiter, timers).then(() => {
        done = true;
      });
      await timers.advance(MAX_TIMER_DELAY_MS);
      await timers.advance(MAX_TIMER_DELAY_MS);
      expect([done, timers.delays]).toEqual([false, [MAX_TIMER_DELAY_MS, MAX_TIMER_DELAY_MS, 10]]);
      await timers.advance(10);
      await waiting;
      expect([done, timers.pending()]).toEqual([true, 0]);
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
      expect(MiddlewareError.isInstance(error) && [error.code, error.stage, error.phase, error.handler, error.cause]).toEqual([
        'ERR_ABORTED',
        'model',
        'wrap',
        'retry',
        'gone',
      ]);
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

    it('clears the slice in progress when the signal aborts during a long wait', async () => {
      const timers = manualTimers();
      const controller = new AbortController();
      const waiting = sleep(MAX_TIMER_DELAY_MS + 1_000, controller.signal, waiter, timers).catch((caught: unknown) => caught);
      await timers.advance(MAX_TIMER_DELAY_MS + 500);
      expect([timers.delays, timers.pending()]).toEqual([[MAX_TIMER_DELAY_MS, 1_000], 1]);
      controller.abort('stop');
      const error = await waiting;
      expect(MiddlewareError.isInstance(error) && error.cause).toBe('stop');
      expect(timers.pending()).toBe(0);
    });

    it('waits for an Infinity delay until the signal aborts, holding no timer', async () => {
      const timers = manualTimers();
      const controller = new AbortController();
      const waiting = sleep(Infinity, controller.signal, waiter, timers).catch((caught: unknown) => caught);
      await timers.advance(10 * MAX_TIMER_DELAY_MS);
      expect([timers.delays, timers.pending()]).toEqual([[], 0]);
      controller.abort('stop');
      const error = await waiting;
      expect(MiddlewareError.isInstance(error) && error.cause).toBe('stop');
    });
  });
});

describe('untilAborted', () => {
  describe('when the promise settles first', () => {
    it.each([
      {
        name: 'resolves',
        settle: (open: { resolve: (value: string) => void; reject: (error: unknown) => void }) => {
          open.resolve('value');
        },
        outcome: { value: 'value' },
      },
      {
        name: 'rejects',
        settle: (open: { resolve: (value: string) => void; reject: (error: unknown) => void }) => {
          open.reject('store down');
        },
        outcome: { error: 'store down' },
      },
    ])('settles as the promise does when it $name, and removes its abort listener', async ({ settle: settlePending, outcome }) => {
      const controller = new AbortController();
      let open!: { resolve: (value: string) => void; reject: (error: unknown) => void };
      const pending = new Promise<string>((resolve, reject) => {
        open = { resolve, reject };
      });
      const waiting = untilAborted(pending, controller.signal, waiter).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      settlePending(open);
      expect(await waiting).toEqual(outcome);
      expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
    });
  });

  describe('under abort', () => {
    it('rejects at once with ERR_ABORTED, after running onAbort, when the signal aborts first', async () => {
      const controller = new AbortController();
      const seen: string[] = [];
      const waiting = untilAborted(new Promise<never>(() => undefined), controller.signal, waiter, () => seen.push('onAbort')).catch(
        (error: unknown) => error,
      );
      controller.abort('gone');
      const error = await waiting;
      expect(MiddlewareError.isInstance(error) && [error.code, error.handler, error.cause]).toEqual(['ERR_ABORTED', 'retry', 'gone']);
      expect(seen).toEqual(['onAbort']);
    });

    it('rejects at once, after running onAbort, when the signal was already aborted', async () => {
      const controller = new AbortController();
      controller.abort('early');
      const seen: string[] = [];
      const error = await untilAborted(Promise.resolve('value'), controller.signal, waiter, () => seen.push('onAbort')).catch(
        (caught: unknown) => caught,
      );
      expect(MiddlewareError.isInstance(error) && [error.code, error.cause]).toEqual(['ERR_ABORTED', 'early']);
      expect([seen, getEventListeners(controller.signal, 'abort')]).toEqual([['onAbort'], []]);
    });
  });
});
