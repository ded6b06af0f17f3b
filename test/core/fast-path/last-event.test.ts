/**
 * `Agent.invoke()` drains its run with `lastEvent`, for speed; these tests pin
 * that `lastEvent` gives exactly what `for await (const event of events) last
 * = event` gives: the same last event, the same failure, and the same order
 * of everything the iterator and its sources did, for an iterator of ours
 * (pulled with `nextInto`) and for any other.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lastEvent } from '../../../src/core/fast-path/last-event';
import { Delegation, PassThroughGenerator } from '../../../src/core/fast-path/pass-through';
import { createStage, MiddlewareRegistry } from '../../../src/core/index';

/** What the source does at each pull: give its next event, or fail. */
type SourceStep = 'event' | 'fail';

interface Scenario {
  readonly ours: boolean;
  readonly steps: readonly SourceStep[];
  readonly observeWaits: boolean;
}

async function* source(steps: readonly SourceStep[], log: string[]): AsyncGenerator<string, void, undefined> {
  try {
    for (const [index, step] of steps.entries()) {
      if (step === 'fail') throw new Error(`failed at ${index}`);
      log.push(`gave e${index}`);
      yield `e${index}`;
    }
  } finally {
    log.push('source ended');
  }
}

/** The iterator drained: a pass-through generator of ours handing the source over, or a native generator doing it with a loop. */
function eventsOf(scenario: Scenario, log: string[]): AsyncIterable<string> {
  const observe = (event: string): string | Promise<string> => {
    log.push(`saw ${event}`);
    return scenario.observeWaits ? Promise.resolve(`${event}!`) : event;
  };
  async function* body(
    passOn: (events: AsyncGenerator<string, void, undefined>) => AsyncGenerator<string | Delegation<string>, void, undefined>,
  ): AsyncGenerator<string | Delegation<string>, void, undefined> {
    yield 'start';
    yield* passOn(source(scenario.steps, log));
    log.push('body ended');
  }
  if (scenario.ours) {
    return new PassThroughGenerator(
      body(async function* handOver(events) {
        yield new Delegation(events, observe);
      }),
    );
  }
  return body(async function* loop(events) {
    for await (const event of events) yield await observe(event);
  }) as AsyncGenerator<string, void, undefined>;
}

/** What draining gave: its last event or its failure, then everything logged on the way. */
async function outcome(drain: (events: AsyncIterable<string>) => Promise<string | undefined>, scenario: Scenario): Promise<unknown[]> {
  const log: string[] = [];
  try {
    const last = await drain(eventsOf(scenario, log));
    return [{ last }, log];
  } catch (error) {
    return [{ failed: (error as Error).message }, log];
  }
}

async function byLoop(events: AsyncIterable<string>): Promise<string | undefined> {
  let last: string | undefined;
  for await (const event of events) last = event;
  return last;
}

describe('lastEvent', () => {
  describe('any iterator, any source', () => {
    it('gives what a for await keeping the last event gives, with the same steps in the same order', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            ours: fc.boolean(),
            steps: fc.array(fc.constantFrom<SourceStep>('event', 'fail'), { maxLength: 6 }),
            observeWaits: fc.boolean(),
          }),
          async (scenario) => {
            expect(await outcome(lastEvent, scenario)).toEqual(await outcome(byLoop, scenario));
          },
        ),
        { numRuns: 60 },
      );
    });
  });

  describe('an iterator of ours', () => {
    it('resolves with the last event', async () => {
      expect(await outcome(lastEvent, { ours: true, steps: ['event', 'event'], observeWaits: false })).toEqual([
        { last: 'e1' },
        ['gave e0', 'saw e0', 'gave e1', 'saw e1', 'source ended', 'body ended'],
      ]);
    });

    it('rejects with the failure of a pull, as it is', async () => {
      const failure = new Error('broken');
      const events = new PassThroughGenerator(
        (async function* broken(): AsyncGenerator<string, void, undefined> {
          yield 'first';
          throw failure;
        })(),
      );
      await expect(lastEvent(events)).rejects.toBe(failure);
    });
  });

  describe('an iterable that is not one of ours', () => {
    it('resolves with undefined when it gives no event', async () => {
      const none = (async function* none(): AsyncGenerator<string, void, undefined> {})();
      expect(await lastEvent(none)).toEqual(undefined);
    });

    it('drains a subclass whose own next() replaces ours through that next(), even over an iterator of ours', async () => {
      class Counted extends PassThroughGenerator<string> {
        pulls = 0;
        override next(): Promise<IteratorResult<string, void>> {
          this.pulls++;
          return super.next();
        }
      }
      const Stage = createStage<undefined, string, string>('lastEventCounted');
      const registry = new MiddlewareRegistry();
      // An invoke is an iterator of ours, which a pass-through generator over it pulls with the fused pull.
      const events = new Counted(
        (async function* overAnInvoke(): AsyncGenerator<Delegation<string>, void, undefined> {
          yield new Delegation(
            registry.invoke(Stage, undefined, async function* two() {
              yield 'a';
              yield 'b';
            }),
            (event: string) => event,
          );
        })(),
      );
      expect([await lastEvent(events), events.pulls]).toEqual(['b', 3]);
    });

    it('drains a subclass whose own next() replaces ours through that next()', async () => {
      class Counted extends PassThroughGenerator<string> {
        pulls = 0;
        override next(): Promise<IteratorResult<string, void>> {
          this.pulls++;
          return super.next();
        }
      }
      const events = new Counted(
        (async function* two(): AsyncGenerator<string, void, undefined> {
          yield 'a';
          yield 'b';
        })(),
      );
      expect([await lastEvent(events), events.pulls]).toEqual(['b', 3]);
    });
  });
});
