/** The consumer's side of the tests that pin a hand-written iterator against the async generator it replaces. */
import fc from 'fast-check';

/** One call of the consumer's: a pull, two pulls at once, `return()` or `throw()`. */
export type ConsumerCall = 'next' | 'twoNexts' | 'return' | 'throw';

/** A consumer's calls, mostly pulls. */
export const consumerCalls: fc.Arbitrary<ConsumerCall[]> = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.constant<ConsumerCall>('next') },
    { weight: 1, arbitrary: fc.constantFrom<ConsumerCall>('twoNexts', 'return', 'throw') },
  ),
  { minLength: 1, maxLength: 14 },
);

/** What a consumer saw of one call: the event or the end, or the error's message. */
export function seen(outcome: PromiseSettledResult<IteratorResult<unknown>>): string {
  if (outcome.status === 'rejected') return `error: ${String((outcome.reason as Error | undefined)?.message ?? outcome.reason)}`;
  const { value, done } = outcome.value;
  const shown = typeof value === 'string' ? value : JSON.stringify(value);
  return done === true ? `done ${String(value)}` : `event ${shown}`;
}

/** Makes one call of the consumer's on `events` and logs what each of its answers was, in call order. */
export async function makeCall(events: AsyncGenerator<unknown, void, undefined>, call: ConsumerCall, log: string[]): Promise<void> {
  const calls =
    call === 'next'
      ? [events.next()]
      : call === 'twoNexts'
        ? [events.next(), events.next()]
        : call === 'return'
          ? [events.return('returned' as never)]
          : [events.throw(new Error('thrown in'))];
  for (const outcome of await Promise.allSettled(calls)) log.push(seen(outcome));
}
