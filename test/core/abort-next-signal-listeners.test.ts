import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { failure } from '../assertions';
import { ModelStage as Stage, echo } from '../fixtures';
import { expectAborted } from './abort-fixtures';

describe('MiddlewareRegistry.invoke', () => {
  describe('next() with a signal: what it registers on the signals', () => {
    it('unties the signal of an inner chain past the first 32 as soon as that chain ends, the others when the invoke settles', async () => {
      const locals = Array.from({ length: 40 }, () => new AbortController());
      const registry = new MiddlewareRegistry();
      let during: number[] = [];
      registry.add(Stage.Wrap, async function* deadlines(_context, next) {
        for (const local of locals) for await (const _event of next(undefined, { signal: local.signal }));
        during = locals.map((local) => getEventListeners(local.signal, 'abort').length);
        yield 'own';
      });
      await registry.run(Stage, { prompt: 'x' }, echo, { signal: new AbortController().signal });
      const after = locals.map((local) => getEventListeners(local.signal, 'abort').length);
      expect({ during, after }).toEqual({
        during: [...Array<number>(32).fill(1), ...Array<number>(8).fill(0)],
        after: Array<number>(40).fill(0),
      });
    });

    it.each([
      ['the given signal', 'given'],
      ["the invoke's signal", 'outer'],
    ])("aborts the inner chain when %s aborts, with that signal's reason", async (_label, which) => {
      const invokeController = new AbortController();
      const given = new AbortController();
      const inner: AbortSignal[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* narrow(_context, next) {
        yield* next(undefined, { signal: given.signal });
        yield* next(undefined, { signal: given.signal });
      });
      const events = registry.invoke(
        Stage,
        { prompt: 'x' },
        async function* terminal(_context, run) {
          inner.push(run.signal);
          yield 'x';
        },
        { signal: invokeController.signal },
      );
      await events.next();
      if (which === 'given') given.abort('given reason');
      else invokeController.abort('outer reason');
      expect([inner[0]?.aborted, inner[0]?.reason]).toEqual([true, `${which} reason`]);
      await events.return();
    });

    it.each([
      ["the invoke's signal", 'outer'],
      ['the signal given to next()', 'given'],
    ])('throws ERR_ABORTED from next() when %s is already aborted, adding no listener', async (_label, which) => {
      const invokeController = new AbortController();
      const given = new AbortController();
      const adds = [vi.spyOn(invokeController.signal, 'addEventListener'), vi.spyOn(given.signal, 'addEventListener')];
      if (which === 'given') given.abort('given reason');
      let thrown: unknown;
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* narrow(_context, next) {
        if (which === 'outer') invokeController.abort('outer reason');
        try {
          yield* next(undefined, { signal: given.signal });
        } catch (error) {
          thrown = error;
          throw error;
        }
      });
      const delivered = await failure(registry.run(Stage, { prompt: 'x' }, echo, { signal: invokeController.signal }));
      expectAborted(thrown, which === 'outer' ? 'outer reason' : 'given reason');
      expect(delivered).toBe(thrown);
      expect(adds.map((add) => add.mock.calls.length)).toEqual([0, 0]);
    });

    it.each([
      ['fails', 'error'],
      ['is closed by the consumer', 'close'],
    ])('removes its listeners when the invoke %s', async (_label, ending) => {
      const invokeSignal = new AbortController().signal;
      const given = new AbortController().signal;
      const add = vi.spyOn(given, 'addEventListener');
      const remove = vi.spyOn(given, 'removeEventListener');
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* narrow(_context, next) {
        yield* next(undefined, { signal: given });
      });
      const events = registry.invoke(
        Stage,
        { prompt: 'x' },
        async function* terminal() {
          yield 'one';
          if (ending === 'error') throw new Error('failed');
          yield 'two';
        },
        { signal: invokeSignal },
      );
      await events.next();
      if (ending === 'error') await expect(events.next()).rejects.toThrow('failed');
      else await events.return();
      expect(add).toHaveBeenCalledTimes(1);
      expect(remove.mock.calls.map((call) => call[1])).toEqual(add.mock.calls.map((call) => call[1]));
    });

    it('removes its listeners from both signals when the invoke settles', async () => {
      const invokeSignal = new AbortController().signal;
      const given = new AbortController().signal;
      const spies = [invokeSignal, given].map((signal) => ({
        add: vi.spyOn(signal, 'addEventListener'),
        remove: vi.spyOn(signal, 'removeEventListener'),
      }));
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* narrow(_context, next) {
        yield* next(undefined, { signal: given });
        yield* next(undefined, { signal: given });
      });
      await registry.run(Stage, { prompt: 'x' }, echo, { signal: invokeSignal });
      // One listener per signal, shared by both narrowed signals, removed once.
      for (const { add, remove } of spies) {
        expect(add).toHaveBeenCalledTimes(1);
        expect(remove.mock.calls.map((call) => call[1])).toEqual(add.mock.calls.map((call) => call[1]));
      }
    });
  });
});
