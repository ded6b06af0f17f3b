/**
 * The invoke takes a shortcut per event when its outermost layer is a native
 * async generator (a `.then` callback instead of an async step). These tests
 * pin that the shortcut delivers exactly what the general path delivers: the
 * same stream is run through a native outermost layer, through one built on
 * `SerialAsyncGenerator` (as the agent's terminals are, which take the shortcut
 * too), and through a hand-written async iterator (which always takes the
 * general path).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import type { Next, HandlerCall } from '../../src/core/index';
import { Guarded, QueuedPassThrough, Unguarded, type Event } from './native-pull-fixtures';

/** An async iterator that is not a native generator, over `source`. */
function handWritten(source: AsyncIterator<Event | undefined, void, undefined>): AsyncGenerator<Event, void, undefined> {
  const iterator = {
    [Symbol.asyncIterator]: () => iterator,
    next: () => source.next(),
    return: async () => {
      await source.return?.();
      return { value: undefined, done: true as const };
    },
    throw: async (error: unknown) => {
      await source.return?.();
      throw error;
    },
    [Symbol.asyncDispose]: async () => undefined,
  };
  return iterator as unknown as AsyncGenerator<Event, void, undefined>;
}

async function* yieldAll(events: readonly (Event | undefined)[]): AsyncGenerator<Event | undefined, void, undefined> {
  for (const event of events) yield event;
}

interface Scenario {
  readonly events: readonly (Event | undefined)[];
  readonly guarded: boolean;
  readonly output: boolean;
  readonly wraps: number;
  readonly queued: boolean;
}

interface Outcome {
  readonly delivered: readonly unknown[];
  readonly error?: string;
}

/** What the outermost layer is: a native generator, a hand-written iterator, or one built on SerialAsyncGenerator (as the agent's are). */
type LayerForm = 'native' | 'handWritten' | 'queued';

/** Runs a scenario with the outermost layer in the given form and records what the consumer sees. */
async function outcome(scenario: Scenario, form: LayerForm): Promise<Outcome> {
  const outer = (events: AsyncGenerator<Event, void, undefined>): AsyncGenerator<Event, void, undefined> =>
    form === 'native' ? events : form === 'handWritten' ? handWritten(events) : new QueuedPassThrough(events);
  // One type for both stages: they differ only in the guard.
  const stage = (scenario.guarded ? Guarded : Unguarded) as typeof Guarded;
  const registry = new MiddlewareRegistry();
  if (scenario.output) {
    registry.add(stage.Output, function check(result) {
      return result.replace({ ...result.value, checked: true });
    });
  }
  for (let index = 0; index < scenario.wraps; index++) {
    const outermost = index === 0;
    registry.add(stage.Wrap, (_context: unknown, next: Next<unknown, Event>, _run: HandlerCall) => {
      const events = next();
      return outermost ? outer(events) : events;
    });
  }
  const terminal = (): AsyncIterable<Event> => {
    const events = yieldAll(scenario.events) as AsyncGenerator<Event, void, undefined>;
    return scenario.wraps === 0 ? outer(events) : events;
  };
  const invocation = registry.invoke(stage, {}, terminal);
  const delivered: unknown[] = [];
  const describeError = (error: unknown): string => (MiddlewareError.isInstance(error) ? error.code : String(error));
  if (scenario.queued) {
    // Every pull at once: the later ones queue behind the first.
    const pulls = Array.from({ length: scenario.events.length + 2 }, () => invocation.next());
    const settled = await Promise.allSettled(pulls);
    let error: string | undefined;
    for (const result of settled) {
      if (result.status === 'rejected') {
        error ??= describeError(result.reason);
        continue;
      }
      if (result.value.done !== true) delivered.push(result.value.value);
    }
    return error === undefined ? { delivered } : { delivered, error };
  }
  try {
    for (;;) {
      const pulled = await invocation.next();
      if (pulled.done === true) return { delivered };
      delivered.push(pulled.value);
    }
  } catch (error) {
    return { delivered, error: describeError(error) };
  }
}

const eventArbitrary = fc.oneof(
  { weight: 6, arbitrary: fc.record({ type: fc.constant('delta' as const), n: fc.nat(9) }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('result' as const), n: fc.nat(9) }) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

describe('MiddlewareRegistry.invoke', () => {
  describe('per-event shortcut for a native outermost layer', () => {
    it('delivers the same events, result and error as the general path', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            events: fc.array(eventArbitrary, { maxLength: 7 }),
            guarded: fc.boolean(),
            output: fc.boolean(),
            wraps: fc.integer({ min: 0, max: 2 }),
            queued: fc.boolean(),
          }),
          async (scenario) => {
            const general = await outcome(scenario, 'handWritten');
            expect(await outcome(scenario, 'native')).toEqual(general);
            expect(await outcome(scenario, 'queued')).toEqual(general);
          },
        ),
        { numRuns: 300 },
      );
    });

    it.each([
      {
        name: 'pass mode streams every event and ends',
        scenario: {
          events: [
            { type: 'delta', n: 1 },
            { type: 'result', n: 2 },
          ],
          guarded: true,
          output: false,
          wraps: 1,
          queued: false,
        },
        expected: {
          delivered: [
            { type: 'delta', n: 1 },
            { type: 'result', n: 2 },
          ],
        },
      },
      {
        name: 'hold mode with a guard passes deltas and transforms the result last',
        scenario: {
          events: [
            { type: 'delta', n: 1 },
            { type: 'result', n: 2 },
            { type: 'delta', n: 3 },
            { type: 'result', n: 4 },
          ],
          guarded: true,
          output: true,
          wraps: 1,
          queued: false,
        },
        expected: {
          delivered: [
            { type: 'delta', n: 1 },
            { type: 'result', n: 2 },
            { type: 'delta', n: 3 },
            { type: 'result', n: 4, checked: true },
          ],
        },
      },
      {
        name: 'hold mode with a guard fails when the last event is not a result',
        scenario: {
          events: [
            { type: 'result', n: 1 },
            { type: 'delta', n: 2 },
          ],
          guarded: true,
          output: true,
          wraps: 0,
          queued: false,
        },
        expected: {
          delivered: [
            { type: 'result', n: 1 },
            { type: 'delta', n: 2 },
          ],
          error: 'ERR_NO_RESULT',
        },
      },
      {
        name: 'an undefined event fails the invoke after the events before it',
        scenario: {
          events: [{ type: 'delta', n: 1 }, undefined, { type: 'result', n: 2 }],
          guarded: true,
          output: false,
          wraps: 2,
          queued: false,
        },
        expected: { delivered: [{ type: 'delta', n: 1 }], error: 'ERR_INVALID_EVENT' },
      },
    ] satisfies { name: string; scenario: Scenario; expected: Outcome }[])(
      '$name (native, hand-written and built on SerialAsyncGenerator alike)',
      async ({ scenario, expected }) => {
        expect({
          native: await outcome(scenario, 'native'),
          handWritten: await outcome(scenario, 'handWritten'),
          queued: await outcome(scenario, 'queued'),
        }).toEqual({ native: expected, handWritten: expected, queued: expected });
      },
    );
  });
});
