import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_DELAY_MS, schedule, systemTimers } from '../../src/util/timers';

/** Timers that record what is scheduled and cleared, and fire a scheduled callback on demand. */
function recordingTimers(): {
  timers: Parameters<typeof schedule>[2];
  scheduled: { handle: number; ms: number }[];
  cleared: unknown[];
  fire: (handle: number) => void;
} {
  const callbacks = new Map<number, () => void>();
  const scheduled: { handle: number; ms: number }[] = [];
  const cleared: unknown[] = [];
  return {
    timers: {
      setTimeout: (callback, ms) => {
        const handle = scheduled.length + 1;
        callbacks.set(handle, callback);
        scheduled.push({ handle, ms });
        return handle;
      },
      clearTimeout: (handle) => {
        cleared.push(handle);
      },
    },
    scheduled,
    cleared,
    fire: (handle) => {
      callbacks.get(handle)?.();
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('MAX_TIMER_DELAY_MS', () => {
  it('is the longest delay a JavaScript timer honours, 2^31 - 1 ms', () => {
    expect(MAX_TIMER_DELAY_MS).toBe(2_147_483_647);
  });
});

describe('schedule', () => {
  describe('with a delay a timer honours', () => {
    it.each([0, 1_000, MAX_TIMER_DELAY_MS])('sets one timer of %i ms that calls back', (ms) => {
      const { timers, scheduled, fire } = recordingTimers();
      const callback = vi.fn();
      schedule(callback, ms, timers);
      expect(scheduled).toEqual([{ handle: 1, ms }]);
      fire(1);
      expect(callback).toHaveBeenCalledTimes(1);
    });
  });

  describe('with a delay longer than a timer honours', () => {
    it('waits in consecutive slices of at most the longest delay, then calls back once', () => {
      const { timers, scheduled, fire } = recordingTimers();
      const callback = vi.fn();
      schedule(callback, 2 * MAX_TIMER_DELAY_MS + 5, timers);
      const steps = [{ timers: scheduled.length, calls: callback.mock.calls.length }];
      for (const handle of [1, 2, 3]) {
        fire(handle);
        steps.push({ timers: scheduled.length, calls: callback.mock.calls.length });
      }
      expect({ scheduled, steps }).toEqual({
        scheduled: [
          { handle: 1, ms: MAX_TIMER_DELAY_MS },
          { handle: 2, ms: MAX_TIMER_DELAY_MS },
          { handle: 3, ms: 5 },
        ],
        steps: [
          { timers: 1, calls: 0 },
          { timers: 2, calls: 0 },
          { timers: 3, calls: 0 },
          { timers: 3, calls: 1 },
        ],
      });
    });
  });

  describe('with an infinite delay', () => {
    it('sets no timer, and its cancel clears nothing', () => {
      const { timers, scheduled, cleared } = recordingTimers();
      schedule(vi.fn(), Infinity, timers)();
      expect({ scheduled, cleared }).toEqual({ scheduled: [], cleared: [] });
    });
  });

  describe('cancelled', () => {
    it('clears the timer it set', () => {
      const { timers, cleared } = recordingTimers();
      schedule(vi.fn(), 1_000, timers)();
      expect(cleared).toEqual([1]);
    });

    it('clears the slice that is running, not one that has fired', () => {
      const { timers, cleared, fire } = recordingTimers();
      const cancel = schedule(vi.fn(), MAX_TIMER_DELAY_MS + 1, timers);
      fire(1);
      cancel();
      expect(cleared).toEqual([2]);
    });
  });
});

describe('systemTimers', () => {
  describe('now', () => {
    it("reads the runtime's performance clock", () => {
      vi.spyOn(performance, 'now').mockReturnValue(12.5);
      expect(systemTimers.now()).toBe(12.5);
    });

    it('falls back to Date.now() where the runtime has no performance clock', () => {
      vi.stubGlobal('performance', undefined);
      vi.spyOn(Date, 'now').mockReturnValue(1_700_000_000_000);
      expect(systemTimers.now()).toBe(1_700_000_000_000);
    });
  });

  describe('wallClock', () => {
    it('reads Date.now()', () => {
      vi.spyOn(Date, 'now').mockReturnValue(1_700_000_000_000);
      expect(systemTimers.wallClock()).toBe(1_700_000_000_000);
    });
  });

  describe('setTimeout and clearTimeout', () => {
    it('schedule on the timers installed when called, so fake timers are honoured', () => {
      vi.useFakeTimers();
      const fired: string[] = [];
      systemTimers.setTimeout(() => fired.push('kept'), 10);
      const cancelled = systemTimers.setTimeout(() => fired.push('cancelled'), 10);
      systemTimers.clearTimeout(cancelled);
      vi.advanceTimersByTime(9);
      const early = [...fired];
      vi.advanceTimersByTime(1);
      expect({ early, fired }).toEqual({ early: [], fired: ['kept'] });
    });
  });
});
