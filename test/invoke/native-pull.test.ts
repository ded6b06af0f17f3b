/**
 * The invoke takes a shortcut per event when its outermost layer is a native
 * async generator (a `.then` callback instead of an async step). These tests
 * pin that the shortcut delivers exactly what the general path delivers: the
 * same stream is run once through a native outermost layer and once through a
 * hand-written async iterator (which always takes the general path).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareError, MiddlewareRegistry } from '../../src/index';
import type { Next, WrapRun } from '../../src/index';

interface Delta {
  readonly type: 'delta';
  readonly n: number;
}
interface Final {
  readonly type: 'result';
  readonly n: number;
  readonly checked?: boolean;
}
type Event = Delta | Final;

const Guarded = createStage<unknown, Final, Event>('fastGuarded', { isResult: (event): event is Final => event.type === 'result' });
const Unguarded = createStage<unknown, Event, Event>('fastUnguarded');

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

/** Runs a scenario with a native or a hand-written outermost layer and records what the consumer sees. */
async function outcome(scenario: Scenario, native: boolean): Promise<Outcome> {
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
    registry.add(stage.Wrap, (_context: unknown, next: Next<unknown, Event>, _run: WrapRun) => {
      const events = next();
      return outermost && !native ? handWritten(events) : events;
    });
  }
  const terminal = (): AsyncIterable<Event> => {
    const events = yieldAll(scenario.events) as AsyncGenerator<Event, void, undefined>;
    return scenario.wraps === 0 && !native ? handWritten(events) : events;
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
            expect(await outcome(scenario, true)).toEqual(await outcome(scenario, false));
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
      '$name (native and hand-written alike)',
      async ({ scenario, expected }) => {
        expect({ native: await outcome(scenario, true), handWritten: await outcome(scenario, false) }).toEqual({
          native: expected,
          handWritten: expected,
        });
      },
    );

    it.each([
      // Each stream is long enough that the pull meeting the end is one the shortcut makes (not the first).
      [
        'ERR_NO_RESULT in pass mode',
        Guarded,
        [
          { type: 'delta', n: 1 },
          { type: 'delta', n: 2 },
        ],
        2,
        'none',
        'ERR_NO_RESULT',
      ],
      [
        'ERR_NO_RESULT in hold mode',
        Guarded,
        [
          { type: 'result', n: 1 },
          { type: 'delta', n: 2 },
        ],
        2,
        'output',
        'ERR_NO_RESULT',
      ],
      [
        'an Output handler that throws',
        Unguarded,
        [
          { type: 'delta', n: 1 },
          { type: 'result', n: 2 },
        ],
        1,
        'failing output',
        'output failed',
      ],
      [
        'a result schema that rejects',
        createStage<unknown, Event, Event>('fastSchema', { result: { safeParse: () => ({ success: false, error: 'no' }) } }),
        [
          { type: 'delta', n: 1 },
          { type: 'result', n: 2 },
        ],
        1,
        'none',
        'ERR_RESULT_INVALID',
      ],
    ] as const)(
      'reports a failure at completion on the shortcut (%s) to instrumentation and then ends',
      async (_label, stage, events, deliveredCount, output, failure) => {
        const registry = new MiddlewareRegistry();
        const outcomes: string[] = [];
        registry.instrument({
          name: 'ends',
          invoke: () => ({ end: (outcome) => outcomes.push(outcome.status === 'error' ? `error ${text(outcome.error)}` : outcome.status) }),
        });
        if (output === 'output') registry.add(stage.Output, (result) => result);
        if (output === 'failing output') {
          registry.add(stage.Output, () => {
            throw new Error('output failed');
          });
        }
        const invoke = registry.invoke(stage as typeof Unguarded, {}, async function* terminal() {
          yield* events;
        });
        const pulls: unknown[] = [];
        for (let pull = 0; pull < deliveredCount + 2; pull++) {
          try {
            pulls.push(await invoke.next());
          } catch (error) {
            pulls.push(`rejected ${text(error)}`);
          }
        }
        const delivered = pulls.slice(0, deliveredCount).map((pulled) => (pulled as IteratorResult<Event, unknown>).value);
        expect({ delivered, rest: pulls.slice(deliveredCount), outcomes }).toEqual({
          delivered: events.slice(0, deliveredCount),
          rest: [`rejected ${failure}`, { value: undefined, done: true }],
          outcomes: [`error ${failure}`],
        });
      },
    );

    it('calls the guard once per event', async () => {
      const seen: number[] = [];
      const Counted = createStage<unknown, Final, Event>('fastCounted', {
        isResult: (event): event is Final => {
          seen.push(event.n);
          return event.type === 'result';
        },
      });
      const registry = new MiddlewareRegistry();
      registry.add(Counted.Output, (result) => result);
      const events: Event[] = [
        { type: 'delta', n: 1 },
        { type: 'result', n: 2 },
        { type: 'delta', n: 3 },
        { type: 'result', n: 4 },
      ];
      const delivered: Event[] = [];
      for await (const event of registry.invoke(Counted, {}, async function* terminal() {
        yield* events;
      })) {
        delivered.push(event);
      }
      expect({ delivered, seen }).toEqual({ delivered: events, seen: [1, 2, 3, 4] });
    });
  });
});

function text(error: unknown): string {
  return MiddlewareError.isInstance(error) ? error.code : (error as Error).message;
}

describe('MiddlewareRegistry.invoke', () => {
  describe('a failure when the chain completes', () => {
    const Plain = createStage<{ prompt: string }, string>('plain');
    it.each([
      [
        'the per-event shortcut (an outermost Wrap handler whose inner chain gave no event: ERR_NO_RESULT)',
        (registry: MiddlewareRegistry) => {
          registry.add(Plain.Wrap, async function* silent(_context, next) {
            for await (const _event of next()) {
              // Swallows every event.
            }
          });
        },
        (error: unknown) => (error as MiddlewareError).code,
        'ERR_NO_RESULT',
      ],
      [
        'the general path (an asynchronous Output handler that throws)',
        (registry: MiddlewareRegistry) => {
          registry.add(Plain.Output, async function refuse() {
            throw new Error('refused');
          });
        },
        (error: unknown) => (error as Error).message,
        'refused',
      ],
    ])(
      'on %s, rejects the pull, reports the error to the instrumentation and ends every later pull',
      async (_label, arrange, describeError, expected) => {
        const registry = new MiddlewareRegistry();
        const outcomes: unknown[] = [];
        registry.instrument({ name: 'outcomes', invoke: () => ({ end: (outcome) => outcomes.push(outcome) }) });
        arrange(registry);
        const events = registry.invoke(Plain, { prompt: 'x' }, async function* terminal() {
          yield 'answer';
        });
        let thrown: unknown;
        try {
          await events.next();
        } catch (error) {
          thrown = error;
        }
        expect(describeError(thrown)).toEqual(expected);
        expect(outcomes).toEqual([{ status: 'error', error: thrown }]);
        expect(await events.next()).toEqual({ value: undefined, done: true });
      },
    );
  });
});
