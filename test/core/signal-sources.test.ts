import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { narrowSignal } from '../../src/core/signals';
import { collectGarbage, listeners } from './signal-fixtures';

/** A fresh copy of the module, so that what it decides when it loads is decided under the globals of the test. */
async function freshNarrowSignal(): Promise<typeof narrowSignal> {
  vi.resetModules();
  return (await import('../../src/core/signals')).narrowSignal;
}

describe('narrowSignal', () => {
  describe('a source whose last follower was released', () => {
    it('listens again when a signal is narrowed from it once more', () => {
      const outer = new AbortController();
      narrowSignal(outer.signal, new AbortController().signal).link?.release();
      const again = narrowSignal(outer.signal, new AbortController().signal);
      outer.abort('again');
      expect([again.signal.aborted, again.signal.reason, listeners(outer.signal)]).toEqual([true, 'again', 0]);
    });
  });

  describe('where the runtime has WeakRef and FinalizationRegistry', () => {
    it('leaves nothing on a long-lived source once the narrowed signals are gone, as loaded', async () => {
      const fresh = await freshNarrowSignal();
      const outer = new AbortController();
      for (let index = 0; index < 1000; index++) fresh(outer.signal, new AbortController().signal);
      const whileAlive = listeners(outer.signal);
      await collectGarbage();
      expect([whileAlive, listeners(outer.signal)]).toEqual([1, 0]);
    });
  });

  describe('where the runtime has WeakRef but no FinalizationRegistry', () => {
    it('still follows both sources and unties them when released', async () => {
      vi.stubGlobal('FinalizationRegistry', undefined);
      onTestFinished(() => {
        vi.unstubAllGlobals();
      });
      const fresh = await freshNarrowSignal();
      const outer = new AbortController();
      const kept = fresh(outer.signal, new AbortController().signal);
      const released = fresh(outer.signal, new AbortController().signal);
      released.link?.release();
      outer.abort('stop');
      expect([kept.signal.reason, released.signal.aborted, listeners(outer.signal)]).toEqual(['stop', false, 0]);
    });
  });
});
