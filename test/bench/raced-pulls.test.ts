/**
 * The abort race that `agent_turn`'s floor with the checks puts on each pull
 * of the model's stream (`bench/raced-pulls.ts`): it is only worth measuring
 * if it does what MW-115 asks of the agent's model terminal, so it is held
 * to that here.
 */
import { describe, expect, it } from 'vitest';
import { nextMacrotask, raceAnswer, racePulls } from '../../bench/raced-pulls';

async function* events<TEvent>(...values: TEvent[]): AsyncGenerator<TEvent, void, undefined> {
  yield* values;
}

/** A signal whose listener calls are counted, so a test can see what is left on it. */
function countedSignal(): { controller: AbortController; listeners: () => number } {
  const controller = new AbortController();
  const { signal } = controller;
  let added = 0;
  let removed = 0;
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (...parts: Parameters<AbortSignal['addEventListener']>) => {
    added++;
    add(...parts);
  };
  signal.removeEventListener = (...parts: Parameters<AbortSignal['removeEventListener']>) => {
    removed++;
    remove(...parts);
  };
  return { controller, listeners: () => added - removed };
}

/** An inner iterator whose pulls never settle until told to, and which logs its `return()`. */
function hangingIterator(log: string[]): { iterable: AsyncIterable<string>; settle: (answer: 'resolve' | 'reject') => void } {
  const settlers: ((answer: 'resolve' | 'reject') => void)[] = [];
  const iterator: AsyncIterator<string, void, undefined> = {
    next: () =>
      new Promise((resolve, reject) => {
        settlers.push((answer) => {
          if (answer === 'resolve') resolve({ value: 'late', done: false });
          else reject(new Error('late failure'));
        });
      }),
    return: () => {
      log.push('return');
      return Promise.resolve({ value: undefined, done: true });
    },
  };
  return {
    iterable: { [Symbol.asyncIterator]: () => iterator },
    settle: (answer) => {
      (settlers.shift() as (a: 'resolve' | 'reject') => void)(answer);
    },
  };
}

describe('racePulls', () => {
  describe('with a result', () => {
    it('answers the end of the stream with the result, then ends, and leaves no listener on the signal', async () => {
      const { controller, listeners } = countedSignal();
      const seen: string[] = [];
      let made = 0;
      const raced = racePulls(events('a', 'b'), controller.signal, () => `result after ${seen.length} (call ${++made})`);
      for await (const event of raced) seen.push(event);
      const after = await raced[Symbol.asyncIterator]().next();
      expect({ seen, after, listeners: listeners() }).toEqual({
        seen: ['a', 'b', 'result after 2 (call 1)'],
        after: { value: undefined, done: true },
        listeners: 0,
      });
    });

    it('fails the pull that met the end with what making the result threw', async () => {
      const failure = new Error('no result');
      const raced = racePulls(events('a'), new AbortController().signal, () => {
        throw failure;
      })[Symbol.asyncIterator]();
      await raced.next();
      await expect(raced.next()).rejects.toBe(failure);
    });
  });

  it('passes every event through, in order, and leaves no listener on the signal once the stream ends', async () => {
    const { controller, listeners } = countedSignal();
    const seen: string[] = [];
    for await (const event of racePulls(events('a', 'b', 'c'), controller.signal)) seen.push(event);
    expect({ seen, listeners: listeners() }).toEqual({ seen: ['a', 'b', 'c'], listeners: 0 });
  });

  it('answers a pending pull with the signal reason as soon as it aborts, and closes the stream without waiting', async () => {
    const log: string[] = [];
    const { controller, listeners } = countedSignal();
    const { iterable } = hangingIterator(log);
    const pull = racePulls(iterable, controller.signal)[Symbol.asyncIterator]().next();
    const reason = new Error('cancelled');
    controller.abort(reason);
    await expect(pull).rejects.toBe(reason);
    expect({ log, listeners: listeners() }).toEqual({ log: ['return'], listeners: 0 });
  });

  it.each(['resolve', 'reject'] as const)('ignores a pull of the stream that settles (%s) after the abort', async (late) => {
    const log: string[] = [];
    const { controller } = countedSignal();
    const { iterable, settle } = hangingIterator(log);
    const raced = racePulls(iterable, controller.signal)[Symbol.asyncIterator]();
    const first = raced.next();
    const reason = new Error('cancelled');
    controller.abort(reason);
    await expect(first).rejects.toBe(reason);
    settle(late);
    const second = raced.next();
    await expect(second).rejects.toBe(reason);
    // A late settlement that threw or was left unhandled would fail the run (test/setup.ts treats one as an error).
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log).toEqual(['return', 'return']);
  });

  it('passes a failure of the stream on and stops listening', async () => {
    const log: string[] = [];
    const { controller, listeners } = countedSignal();
    const { iterable, settle } = hangingIterator(log);
    const pull = racePulls(iterable, controller.signal)[Symbol.asyncIterator]().next();
    settle('reject');
    await expect(pull).rejects.toThrow('late failure');
    expect({ log, listeners: listeners() }).toEqual({ log: [], listeners: 0 });
  });
});

describe('raceAnswer', () => {
  describe('an answer that comes first', () => {
    it('answers with it and leaves no listener on the signal', async () => {
      const { controller, listeners } = countedSignal();
      const answer = await raceAnswer(Promise.resolve('found'), controller.signal);
      expect([answer, listeners()]).toEqual(['found', 0]);
    });

    it('fails with its failure and leaves no listener on the signal', async () => {
      const { controller, listeners } = countedSignal();
      const failure = new Error('tool failed');
      const outcome = await raceAnswer(Promise.reject(failure), controller.signal).catch((error: unknown) => error);
      expect([outcome, listeners()]).toEqual([failure, 0]);
    });
  });

  describe('a signal that aborts first', () => {
    it('fails with its reason at once, ignores the late answer and leaves no listener once that comes', async () => {
      const { controller, listeners } = countedSignal();
      let settle: (value: string) => void = () => undefined;
      const raced = raceAnswer(new Promise<string>((resolve) => (settle = resolve)), controller.signal);
      const reason = new Error('cancelled');
      controller.abort(reason);
      const outcome = await raced.catch((error: unknown) => error);
      settle('late');
      await Promise.resolve();
      expect([outcome, listeners()]).toEqual([reason, 0]);
    });

    it('fails with the reason of a signal aborted before the call', async () => {
      const { controller, listeners } = countedSignal();
      const reason = new Error('cancelled before');
      controller.abort(reason);
      const outcome = await raceAnswer(Promise.reject(new Error('ignored')), controller.signal).catch((error: unknown) => error);
      expect([outcome, listeners()]).toEqual([reason, 0]);
    });
  });
});

describe('nextMacrotask', () => {
  describe('promise jobs queued after it', () => {
    it('resolves only once they have all run, as a macrotask does', async () => {
      let steps = 0;
      const waited = nextMacrotask().then(() => steps);
      let chain = Promise.resolve();
      for (let index = 0; index < 1000; index++)
        chain = chain.then(() => {
          steps++;
        });
      expect(await waited).toEqual(1000);
    });
  });
});
