/**
 * The last event of an async iterable, as `for await (const event of events) last = event` gives it, without
 * that loop's async step per event where `events` is an iterator of ours (`nextInto`).
 */
import { SerialAsyncGenerator } from './serial-async-generator';

/**
 * Drains `events` and resolves with its last event (undefined when there was none), or rejects with what a pull
 * failed with, as the loop would. Why not the loop: an async function awaits each answer, a promise job and a
 * resumption per event; an iterator of ours whose `next` is its own is pulled with `nextInto`, so each answer goes
 * on to the next pull in the reaction that made it. Anything else (a subclass's `next`, a native generator) takes
 * the loop.
 */
export function lastEvent<TEvent>(events: AsyncIterable<TEvent>): Promise<TEvent | undefined> {
  if (!(events instanceof SerialAsyncGenerator) || events.next !== SerialAsyncGenerator.prototype.next) return lastByLoop(events);
  const iterator = events as SerialAsyncGenerator<TEvent>;
  return new Promise((resolve, reject) => {
    let last: TEvent | undefined;
    const onAnswer = (answer: IteratorResult<TEvent, void>): void => {
      if (answer.done === true) {
        resolve(last);
        return;
      }
      last = answer.value;
      // Its promise settles with what the callbacks return, which never throw: nothing to handle.
      void iterator.nextInto(onAnswer, reject);
    };
    void iterator.nextInto(onAnswer, reject);
  });
}

async function lastByLoop<TEvent>(events: AsyncIterable<TEvent>): Promise<TEvent | undefined> {
  let last: TEvent | undefined;
  for await (const event of events) last = event;
  return last;
}
