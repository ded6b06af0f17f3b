import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createStage, MiddlewareRegistry } from '../../src/core/index';
import { brand } from '../../src/util/brand';
import { fields } from '../assertions';
import { consume, delta, emitting, final, Guarded, holding, type Context, type Event, type Final } from './phases-fixtures';

describe('MiddlewareRegistry.invoke', () => {
  describe('the result the Output phase takes over', () => {
    it('regression: an Output handler mutating result.value in place gets a TypeError instead of changing a value another handler holds', async () => {
      const registry = new MiddlewareRegistry();
      const held: Final[] = [];
      registry.add(Guarded.Output, (result) => (held.push(result.value), result));
      registry.add(Guarded.Output, (result) => {
        (result.value as { text: string }).text = 'rewritten in place';
        return result;
      });
      const outcome = await consume(registry.invoke(Guarded, { prompt: 'x' }, emitting([delta('d'), final('r')])));
      expect({ events: outcome.events, error: (outcome.error as Error).constructor.name, held }).toEqual({
        events: [delta('d')],
        error: 'TypeError',
        held: [],
      });
    });

    it('delivers the final result frozen and the earlier events as they came', async () => {
      const first = delta('d');
      const last = final('r');
      await consume(holding().invoke(Guarded, { prompt: 'x' }, emitting([first, last])));
      expect([Object.isFrozen(first), Object.isFrozen(last)]).toEqual([false, true]);
    });

    it('freezes the value each Output handler receives, also one a result of another copy carries unfrozen', async () => {
      const registry = new MiddlewareRegistry();
      const seen: boolean[] = [];
      registry.add(Guarded.Output, (result) => (seen.push(Object.isFrozen(result.value)), result));
      // A result as a copy of the package that does not freeze its value would make it.
      registry.add(Guarded.Output, () => brand({ value: final('foreign') }, 'result') as never);
      registry.add(Guarded.Output, (result) => (seen.push(Object.isFrozen(result.value)), result));
      expect(await registry.run(Guarded, { prompt: 'x' }, emitting([final('r')]))).toEqual(final('foreign'));
      expect(seen).toEqual([true, true]);
    });

    it.each([
      ['a state binding', { state: { get: () => ({ n: 0 }), set: () => undefined } }, Guarded],
      [
        'a result schema',
        {},
        createStage<Context, Final, Event>('schema', { isResult: (event): event is Final => event.type === 'result', result: z.any() }),
      ],
      ['no Output handler at all', {}, Guarded],
    ])('freezes nothing without Output handlers, with %s', async (_label, options, stage) => {
      const last = final('r');
      await new MiddlewareRegistry().run(stage, { prompt: 'x' }, emitting([last]), options);
      expect(Object.isFrozen(last)).toBe(false);
    });
  });

  describe('result through run', () => {
    it('resolves with the Output-transformed result', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(Guarded.Output, (result) =>
        result.update((draft) => {
          draft.text = draft.text.toUpperCase();
        }),
      );
      await expect(registry.run(Guarded, { prompt: 'x' }, emitting([delta('d'), final('done')]))).resolves.toEqual(final('DONE'));
    });
  });

  describe('what Input and Output handlers receive besides their value', () => {
    it("gives each a fresh { stage, signal, handler } with the invoke's signal", async () => {
      const registry = new MiddlewareRegistry();
      const runs: { stage: unknown; signal: AbortSignal; handler: string }[] = [];
      registry.add(Guarded.Input, function addContext(context, run) {
        runs.push(run);
        return context;
      });
      registry.add(Guarded.Output, function checkAnswer(result, run) {
        runs.push(run);
        return result;
      });
      const controller = new AbortController();
      await registry.run(Guarded, { prompt: 'x' }, emitting([final('done')]), { signal: controller.signal });
      expect(runs).toEqual([
        { stage: Guarded, signal: controller.signal, handler: 'addContext' },
        { stage: Guarded, signal: controller.signal, handler: 'checkAnswer' },
      ]);
      expect(runs[0]).not.toBe(runs[1]);
    });

    it('gives a signal that never aborts to an invoke without one', async () => {
      const registry = new MiddlewareRegistry();
      let seen: AbortSignal | undefined;
      registry.add(Guarded.Input, (context, run) => {
        seen = run.signal;
        return context;
      });
      await registry.run(Guarded, { prompt: 'x' }, emitting([final('done')]));
      expect(seen?.aborted).toBe(false);
    });

    it('lets an Input handler waiting on I/O stop when the invoke is cancelled, and the consumer sees ERR_ABORTED', async () => {
      const registry = new MiddlewareRegistry();
      const controller = new AbortController();
      registry.add(Guarded.Input, function fetchDocuments(context, run) {
        return new Promise<Context>((_resolve, reject) => {
          run.signal.addEventListener(
            'abort',
            () => {
              reject(run.signal.reason as Error);
            },
            { once: true },
          );
          controller.abort(new Error('user left'));
        });
      });
      const outcome = await consume(registry.invoke(Guarded, { prompt: 'x' }, emitting([final('done')]), { signal: controller.signal }));
      expect(fields(outcome.error)).toEqual({ code: 'ERR_ABORTED', stage: 'guarded', phase: undefined, handler: undefined });
    });
  });
});
