import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { narrowSignal, neverSignal } from '../../src/core/signals';
import { collectGarbage, listeners } from './signal-fixtures';

describe('neverSignal', () => {
  it('returns one shared signal that is not aborted', () => {
    expect(neverSignal()).toBe(neverSignal());
    expect(neverSignal().aborted).toBe(false);
  });
});

describe('narrowSignal, where the runtime has no WeakRef', () => {
  it('still follows both sources and unties them when released', async () => {
    vi.resetModules();
    vi.stubGlobal('WeakRef', undefined);
    onTestFinished(() => {
      vi.unstubAllGlobals();
    });
    const { narrowSignal: strongNarrow } = await import('../../src/core/signals');
    const outer = new AbortController();
    const kept = strongNarrow(outer.signal, new AbortController().signal);
    const released = strongNarrow(outer.signal, new AbortController().signal);
    released.link?.release();
    outer.abort('stop');
    expect([kept.signal.reason, released.signal.aborted, listeners(outer.signal)]).toEqual(['stop', false, 0]);
  });
});

describe('narrowSignal', () => {
  describe('from the never-aborting signal, or from the given signal itself', () => {
    it('returns the given signal itself and no link', () => {
      const given = new AbortController().signal;
      expect([narrowSignal(neverSignal(), given), narrowSignal(given, given)]).toEqual([
        { signal: given, link: undefined },
        { signal: given, link: undefined },
      ]);
    });
  });

  describe("from a caller's signal", () => {
    it.each([
      ['the outer signal', 'outer'],
      ['the given signal', 'given'],
    ])('aborts when %s aborts, with its reason, and then leaves no listener', (_label, which) => {
      const outer = new AbortController();
      const given = new AbortController();
      const { signal } = narrowSignal(outer.signal, given.signal);
      expect(signal.aborted).toBe(false);
      (which === 'outer' ? outer : given).abort(`${which} reason`);
      expect([signal.aborted, signal.reason, listeners(outer.signal), listeners(given.signal)]).toEqual([true, `${which} reason`, 0, 0]);
    });

    it.each([
      ['the outer signal', 'outer'],
      ['the given signal', 'given'],
    ])('is aborted at once, with no link, when %s is already aborted', (_label, which) => {
      const outer = new AbortController();
      const given = new AbortController();
      (which === 'outer' ? outer : given).abort(`${which} reason`);
      const { signal, link } = narrowSignal(outer.signal, given.signal);
      expect([signal.aborted, signal.reason, link, listeners(outer.signal), listeners(given.signal)]).toEqual([
        true,
        `${which} reason`,
        undefined,
        0,
        0,
      ]);
    });

    it('keeps the reason of the source that aborted first', () => {
      const outer = new AbortController();
      const given = new AbortController();
      const { signal } = narrowSignal(outer.signal, given.signal);
      given.abort('first');
      outer.abort('second');
      expect(signal.reason).toBe('first');
    });

    it('follows a narrowed signal narrowed again', () => {
      const outer = new AbortController();
      const first = narrowSignal(outer.signal, new AbortController().signal);
      const second = narrowSignal(first.signal, new AbortController().signal);
      outer.abort('outer reason');
      expect([first.signal.reason, second.signal.reason]).toEqual(['outer reason', 'outer reason']);
    });
  });

  describe('listeners on a long-lived source', () => {
    it('shares one listener per source among every narrowed signal following it', () => {
      const outer = new AbortController();
      const narrowed = Array.from({ length: 20 }, () => narrowSignal(outer.signal, new AbortController().signal));
      expect(listeners(outer.signal)).toBe(1);
      outer.abort('all');
      expect(narrowed.every(({ signal }) => signal.reason === 'all')).toBe(true);
    });

    it('removes the listener when the last link is released, and a released signal no longer follows', () => {
      const outer = new AbortController();
      const given = new AbortController();
      const first = narrowSignal(outer.signal, given.signal);
      const second = narrowSignal(outer.signal, new AbortController().signal);
      first.link?.release();
      first.link?.release();
      const afterFirst = [listeners(outer.signal), listeners(given.signal)];
      second.link?.release();
      outer.abort('late');
      expect({ afterFirst, afterBoth: listeners(outer.signal), aborted: [first.signal.aborted, second.signal.aborted] }).toEqual({
        afterFirst: [1, 0],
        afterBoth: 0,
        aborted: [false, false],
      });
    });

    it('regression: narrowing many times under one long-lived signal leaves nothing on it once the narrowed signals are gone', async () => {
      const outer = new AbortController();
      for (let index = 0; index < 1000; index++) narrowSignal(outer.signal, new AbortController().signal);
      const whileAlive = listeners(outer.signal);
      await collectGarbage();
      expect([whileAlive, listeners(outer.signal)]).toEqual([1, 0]);
    });
  });
});
