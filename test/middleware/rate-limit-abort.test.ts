import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, type Next } from '../../src/core/index';
import { rateLimit, type Timers } from '../../src/middleware/index';
import { scriptedTerminal } from '../../src/testing/index';
import { TextStage, manualTimers, settle } from './fixtures';
import { activations, startMany } from './rate-limit-callers';

const context = { prompt: 'hi' };

describe('rateLimit', () => {
  describe('under abort', () => {
    it('ends the wait at once, clears the timer and gives the slot back', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(TextStage.Wrap, rateLimit({ minIntervalMs: 100, timers }));
      const controller = new AbortController();
      await registry.run(TextStage, context, scriptedTerminal([['first']]));
      const waiting = registry
        .run(TextStage, context, scriptedTerminal([['never']]), { signal: controller.signal })
        .catch((error: unknown) => error);
      await settle();
      expect(timers.pending()).toBe(1);
      controller.abort('gone');
      const error = await waiting;
      expect(MiddlewareError.isInstance(error) && [error.code, error.cause]).toEqual(['ERR_ABORTED', 'gone']);
      expect(timers.pending()).toBe(0);
      // The aborted caller's slot is free again: the next caller waits for the first caller's interval only.
      const { starts, runs } = startMany(registry, 1, () => timers.now());
      await settle();
      await timers.advance(100);
      expect(starts).toEqual([100]);
      await Promise.all(runs);
    });
  });

  describe('when a queued waiter aborts', () => {
    // The waiters behind used to keep the start times reserved on arrival, so the aborted one's slot was lost.
    it('moves the waiters behind it up', async () => {
      const timers = manualTimers();
      const { starts, outcomes, arrive } = activations(rateLimit({ minIntervalMs: 100, timers }), () => timers.now());
      const b = new AbortController();
      const done = [arrive('a'), arrive('b', b.signal), arrive('c'), arrive('d')];
      await settle();
      await timers.advance(10);
      b.abort('gone');
      await timers.advance(290);
      await Promise.all(done);
      expect(starts).toEqual(['a@0', 'c@100', 'd@200']);
      expect(outcomes.get('b')).toBe('ERR_ABORTED gone');
      expect(timers.pending()).toBe(0);
    });

    // The aborted waiter's token used to be handed to the next arrival while the queue kept its reservations: two starts at once.
    it('keeps to the rate for a caller arriving after the abort', async () => {
      const timers = manualTimers();
      const { starts, arrive } = activations(rateLimit({ minIntervalMs: 100, timers }), () => timers.now());
      const b = new AbortController();
      const done = [arrive('a'), arrive('b', b.signal), arrive('c')];
      await settle();
      await timers.advance(10);
      b.abort('gone');
      done.push(arrive('e'));
      await timers.advance(400);
      await Promise.all(done);
      expect(starts).toEqual(['a@0', 'c@100', 'e@200']);
    });

    it.each([
      { name: 'the head first', order: ['b', 'c'], expected: ['a@0', 'd@100', 'e@200'] },
      { name: 'a later waiter first', order: ['c', 'b'], expected: ['a@0', 'd@100', 'e@200'] },
      { name: 'the last waiter only', order: ['e'], expected: ['a@0', 'b@100', 'c@200', 'd@300'] },
    ])('serves the others in arrival order, aborting $name', async ({ order, expected }) => {
      const timers = manualTimers();
      const { starts, outcomes, arrive } = activations(rateLimit({ minIntervalMs: 100, timers }), () => timers.now());
      const controllers = new Map(['b', 'c', 'd', 'e'].map((name) => [name, new AbortController()]));
      const done = [arrive('a'), ...['b', 'c', 'd', 'e'].map((name) => arrive(name, controllers.get(name)?.signal))];
      await settle();
      for (const name of order) {
        await timers.advance(10);
        controllers.get(name)?.abort('gone');
      }
      await timers.advance(1_000);
      await Promise.all(done);
      expect(starts).toEqual(expected);
      expect(order.map((name) => outcomes.get(name))).toEqual(order.map(() => 'ERR_ABORTED gone'));
      expect(timers.pending()).toBe(0);
    });

    it('holds one timer at most, for the head of the queue', async () => {
      const timers = manualTimers();
      const { arrive } = activations(rateLimit({ tokensPerInterval: 2, intervalMs: 100, timers }), () => timers.now());
      const done = ['a', 'b', 'c', 'd', 'e'].map((name) => arrive(name));
      await settle();
      expect([timers.pending(), timers.delays]).toEqual([1, [50]]);
      await timers.advance(200);
      await Promise.all(done);
      expect([timers.pending(), timers.delays]).toEqual([0, [50, 50, 50]]);
    });
  });

  describe('when a caller is aborted before it starts', () => {
    // Its token used to be taken all the same, so the next caller waited a full interval for nothing.
    it('takes no token when its signal aborted before it arrived', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      const seen: string[] = [];
      const abortsBeforePulling = async function* abortsBeforePulling(
        input: { readonly prompt: string },
        next: Next<{ readonly prompt: string }, string>,
      ): AsyncGenerator<string, void, undefined> {
        const local = new AbortController();
        const first = next(input, { signal: local.signal });
        local.abort('gone');
        try {
          yield* first;
        } catch (error) {
          seen.push(MiddlewareError.isInstance(error) ? `${error.code} ${error.handler}` : String(error));
        }
        yield* next(input);
      };
      registry.add(TextStage.Wrap, abortsBeforePulling);
      registry.add(TextStage.Wrap, rateLimit({ minIntervalMs: 100, timers }));
      const { starts, runs } = startMany(registry, 1, () => timers.now());
      await settle();
      expect([starts, seen, timers.pending()]).toEqual([[0], ['ERR_ABORTED rateLimit'], 0]);
      expect(await Promise.all(runs)).toEqual(['done']);
    });

    it('gives its token back when aborted between being given it and starting', async () => {
      let clock = 0;
      let due: (() => void) | undefined;
      const timers: Timers = {
        now: () => clock,
        wallClock: () => clock,
        setTimeout: (callback) => ((due = callback), 1),
        clearTimeout: () => {
          due = undefined;
        },
      };
      const { starts, outcomes, arrive } = activations(rateLimit({ minIntervalMs: 100, timers }), () => clock);
      const b = new AbortController();
      const done = [arrive('a'), arrive('b', b.signal), arrive('c')];
      await settle();
      clock = 100;
      // The timer gives b the token; b's signal aborts in the same turn, before b can start.
      due?.();
      b.abort('gone');
      await settle();
      expect([starts, outcomes.get('b')]).toEqual([['a@0', 'c@100'], 'ERR_ABORTED gone']);
      clock = 200;
      due?.();
      await Promise.all(done);
    });

    it('gives its token back when aborted after its wait ended, before it resumed', async () => {
      let clock = 0;
      let due: (() => void) | undefined;
      const timers: Timers = {
        now: () => clock,
        wallClock: () => clock,
        setTimeout: (callback) => ((due = callback), 1),
        clearTimeout: () => {
          due = undefined;
        },
      };
      const { starts, outcomes, arrive } = activations(rateLimit({ minIntervalMs: 100, timers }), () => clock);
      const b = new AbortController();
      const done = [arrive('a'), arrive('b', b.signal), arrive('c')];
      await settle();
      clock = 100;
      due?.();
      // One promise turn later b's wait has ended (its abort listener is gone), but b has not resumed to call next().
      queueMicrotask(() => {
        b.abort('gone');
      });
      await settle();
      expect([starts, outcomes.get('b')]).toEqual([['a@0', 'c@100'], 'ERR_ABORTED gone']);
      await Promise.all(done);
    });
  });

  describe('over random arrival and abort schedules', () => {
    /** One caller: when it arrives, and when (if ever) its signal aborts, in ms. */
    const caller = fc.record({ arrival: fc.nat(120), abort: fc.option(fc.oneof(fc.constant(-1), fc.nat(80)), { nil: undefined }) });

    it('never starts more than the bucket allows, in arrival order, and never keeps a caller waiting longer than the bucket requires', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(
            { capacity: 1, intervalMs: 10 },
            { capacity: 2, intervalMs: 10 },
            { capacity: 3, intervalMs: 30 },
            { capacity: 1, intervalMs: 7 },
          ),
          fc.array(caller, { minLength: 1, maxLength: 12 }),
          async ({ capacity, intervalMs }, callers) => {
            const timers = manualTimers();
            const { starts, outcomes, arrive } = activations(rateLimit({ tokensPerInterval: capacity, intervalMs, timers }), () =>
              timers.now(),
            );
            const controllers = callers.map(() => new AbortController());
            // Arrivals at whole ms, aborts half a ms after their offset (-1: before arriving), so no abort ties with a start.
            const steps = callers.flatMap(({ arrival, abort }, index) => [
              { at: arrival, order: 1, index, act: () => void done.push(arrive(String(index), controllers[index]?.signal)) },
              ...(abort === undefined
                ? []
                : [
                    {
                      at: abort === -1 ? arrival : arrival + abort + 0.5,
                      order: abort === -1 ? 0 : 2,
                      index,
                      act: () => controllers[index]?.abort('gone'),
                    },
                  ]),
            ]);
            steps.sort((left, right) => left.at - right.at || left.order - right.order || left.index - right.index);
            const done: Promise<void>[] = [];
            for (const step of steps) {
              await timers.advance(step.at - timers.now());
              step.act();
              await settle();
            }
            await timers.advance(callers.length * intervalMs * 2);
            await Promise.all(done);

            const started = starts.map((entry) => {
              const [index, at] = entry.split('@');
              return { index: Number(index), at: Number(at) };
            });
            const refillPerMs = capacity / intervalMs;
            // Every caller either started or was aborted before it started.
            expect(callers.map((_, index) => outcomes.get(String(index)))).toEqual(
              callers.map((_, index) => (started.some((start) => start.index === index) ? 'started' : 'ERR_ABORTED gone')),
            );
            // Arrival order: ties at one ms go by index, as they arrived.
            const arrivalOrder = started
              .map(({ index }) => index)
              .sort((left, right) => (callers[left]?.arrival ?? 0) - (callers[right]?.arrival ?? 0) || left - right);
            expect(started.map(({ index }) => index)).toEqual(arrivalOrder);
            started.forEach(({ index, at }, position) => {
              // The bucket's level just before this start, from the starts before it (the bucket was full at 0).
              let level: number = capacity;
              for (let earlier = 0; earlier < position; earlier++) {
                level = Math.min(level, capacity + refillPerMs * (at - (started[earlier]?.at ?? 0)) - (position - earlier));
              }
              expect(level).toBeGreaterThanOrEqual(1 - 1e-6);
              // A caller that waited started the moment the bucket held one token.
              if (at > (callers[index]?.arrival ?? 0)) expect(level).toBeLessThanOrEqual(1 + 1e-6);
            });
            expect(timers.pending()).toBe(0);
          },
        ),
        { numRuns: 200 },
      );
    });
  });
});
