import { describe, expect, it } from 'vitest';
import { narrowSignal, neverSignal } from '../src/signals';

describe('neverSignal', () => {
  it('returns one shared signal that is not aborted', () => {
    expect(neverSignal()).toBe(neverSignal());
    expect(neverSignal().aborted).toBe(false);
  });
});

describe('narrowSignal', () => {
  describe('from the never-aborting signal', () => {
    it('returns the given signal itself and registers no cleanup', () => {
      const given = new AbortController().signal;
      const cleanups: (() => void)[] = [];
      expect(narrowSignal(neverSignal(), given, (cleanup) => cleanups.push(cleanup))).toBe(given);
      expect(cleanups).toEqual([]);
    });
  });

  describe('from a caller\'s signal', () => {
    it.each([
      ['the outer signal', 'outer'],
      ['the given signal', 'given'],
    ])('aborts when %s aborts, with its reason', (_label, which) => {
      const outer = new AbortController();
      const given = new AbortController();
      const narrowed = narrowSignal(outer.signal, given.signal, () => undefined);
      expect(narrowed.aborted).toBe(false);
      (which === 'outer' ? outer : given).abort(`${which} reason`);
      expect([narrowed.aborted, narrowed.reason]).toEqual([true, `${which} reason`]);
    });
  });
});
