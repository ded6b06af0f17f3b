import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../../src/core/index';
import { OwnedAbortController } from '../../../src/core/fast-path/owned-abort-controller';
import { narrowSignal } from '../../../src/core/signals';
import { ModelStage as Stage } from '../../fixtures';

/** Counts the reads of `aborted` on one signal from now on, still answering what the signal says. */
function countReads(signal: AbortSignal): { readonly reads: number } {
  const counter = { reads: 0 };
  Object.defineProperty(signal, 'aborted', {
    configurable: true,
    get() {
      counter.reads++;
      // The prototype's getter, on this signal: what the signal says.
      return Reflect.get<AbortSignal, 'aborted'>(AbortSignal.prototype, 'aborted', signal);
    },
  });
  return counter;
}

/** Drains an invoke of `events` events under `signal`. */
async function drainInvoke(signal: AbortSignal, events: number): Promise<void> {
  const stream = new MiddlewareRegistry().invoke(
    Stage,
    { prompt: 'x' },
    async function* terminal() {
      for (let index = 0; index < events; index++) yield `event ${index}`;
    },
    { signal },
  );
  for await (const _event of stream);
}

describe('OwnedAbortController', () => {
  describe('its flag', () => {
    it('says what its signal says, before and after the abort', () => {
      const controller = new OwnedAbortController();
      expect([controller.aborted, controller.signal.aborted]).toEqual([false, false]);
      const reason = new Error('stop');
      controller.abort(reason);
      expect([controller.aborted, controller.signal.aborted]).toEqual([true, true]);
      expect(controller.signal.reason).toBe(reason);
    });

    it("is already set when the signal's listeners run", () => {
      const controller = new OwnedAbortController();
      const seen: boolean[] = [];
      controller.signal.addEventListener('abort', () => seen.push(controller.aborted));
      controller.abort('stop');
      expect(seen).toEqual([true]);
    });
  });

  describe('abort()', () => {
    it("gives the runtime's default reason when none is given, as AbortController.abort() does", () => {
      const controller = new OwnedAbortController();
      controller.abort();
      const plain = new AbortController();
      plain.abort();
      expect(controller.signal.reason).toBeInstanceOf(DOMException);
      expect((controller.signal.reason as DOMException).name).toBe((plain.signal.reason as DOMException).name);
    });

    it('keeps the first reason when called again', () => {
      const controller = new OwnedAbortController();
      controller.abort('first');
      controller.abort('second');
      expect([controller.aborted, controller.signal.reason]).toEqual([true, 'first']);
    });
  });

  describe('of()', () => {
    it('finds the controller of its own signal, and none for any other signal', () => {
      const controller = new OwnedAbortController();
      expect(OwnedAbortController.of(controller.signal)).toBe(controller);
      expect(OwnedAbortController.of(new AbortController().signal)).toBeUndefined();
      expect(OwnedAbortController.of(AbortSignal.abort())).toBeUndefined();
    });

    it('finds the controller of a narrowed signal, which the library aborts itself', () => {
      const outer = new AbortController();
      const narrowed = narrowSignal(outer.signal, new AbortController().signal);
      const controller = OwnedAbortController.of(narrowed.signal);
      expect(controller?.signal).toBe(narrowed.signal);
      outer.abort('outer');
      expect([controller?.aborted, narrowed.signal.reason]).toEqual([true, 'outer']);
    });
  });

  describe('under an invoke', () => {
    it("is read instead of the signal's aborted, so the signal is read as often for 100 events as for 1", async () => {
      const counts = [];
      for (const events of [1, 100]) {
        const controller = new OwnedAbortController();
        const counter = countReads(controller.signal);
        await drainInvoke(controller.signal, events);
        counts.push(counter.reads);
      }
      expect(counts[1]).toBe(counts[0]);
    });

    it("leaves any other signal read at every check point, so a caller's own aborted is honoured", async () => {
      const counts = [];
      for (const events of [1, 100]) {
        const signal = new AbortController().signal;
        const counter = countReads(signal);
        await drainInvoke(signal, events);
        counts.push(counter.reads);
      }
      expect(counts[1]).toBeGreaterThan(counts[0] as number);
    });
  });
});
