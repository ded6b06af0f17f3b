import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { Guarded, Unguarded, type Event, type Final } from './native-pull-fixtures';

function text(error: unknown): string {
  return MiddlewareError.isInstance(error) ? error.code : (error as Error).message;
}

/** The one-event terminal as a native generator. */
async function* answerOnce(): AsyncGenerator<string, void, undefined> {
  yield 'answer';
}

describe('MiddlewareRegistry.invoke', () => {
  describe('per-event shortcut for a native outermost layer', () => {
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

  describe('a failure when the chain completes', () => {
    const Plain = createStage<{ prompt: string }, string>('plain');
    const refuseOutput = (registry: MiddlewareRegistry): void => {
      registry.add(Plain.Output, async function refuse() {
        throw new Error('refused');
      });
    };
    const messageOf = (error: unknown): string => (error as Error).message;
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
      ['the per-event shortcut (an asynchronous Output handler that throws)', refuseOutput, messageOf, 'refused'],
      [
        'the general step of a hand-written outermost layer (an asynchronous Output handler that throws)',
        refuseOutput,
        messageOf,
        'refused',
        'hand-written',
      ],
    ] as const)(
      'on %s, rejects the pull, reports the error to the instrumentation and ends every later pull',
      async (_label, arrange, describeError, expected, layer?: 'hand-written') => {
        const registry = new MiddlewareRegistry();
        const outcomes: unknown[] = [];
        registry.instrument({ name: 'outcomes', invoke: () => ({ end: (outcome) => outcomes.push(outcome) }) });
        arrange(registry);
        const events = registry.invoke(Plain, { prompt: 'x' }, (): AsyncIterable<string> => {
          if (layer !== 'hand-written') return answerOnce();
          // Not a native generator: the invoke pulls it with its general step, not the shortcut.
          let given = false;
          const iterator = {
            [Symbol.asyncIterator]: () => iterator,
            next: () =>
              Promise.resolve(
                given ? { value: undefined, done: true as const } : ((given = true), { value: 'answer', done: false as const }),
              ),
            return: () => Promise.resolve({ value: undefined, done: true as const }),
          };
          return iterator;
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
