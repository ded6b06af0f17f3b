/**
 * The shells the benchmark's floors are measured with (`bench/floor.ts`): a
 * floor is only worth reporting if the shell does what it says, so each is
 * held to it here, the checked one to every check it claims to make.
 */
import { describe, expect, it } from 'vitest';
import { checkedShell, minimalShell, type Shell } from '../../bench/floor';

async function* events<TEvent>(...values: TEvent[]): AsyncGenerator<TEvent, void, undefined> {
  yield* values;
}

async function drain<TEvent>(iterable: AsyncIterable<TEvent>): Promise<TEvent[]> {
  const seen: TEvent[] = [];
  for await (const event of iterable) seen.push(event);
  return seen;
}

/** Inner chains that log their `return()` calls, as a hand-nested chain's `next` calls push them. */
function heldChains(log: string[], names: readonly string[]): AsyncIterable<unknown>[] {
  return names.map((name) => {
    const chain = events<unknown>();
    return {
      [Symbol.asyncIterator]: () => chain,
      return: async () => {
        log.push(`close ${name}`);
        return chain.return(undefined);
      },
    } as unknown as AsyncIterable<unknown>;
  });
}

/** An inner iterator whose pulls wait until released, logging when each starts. */
function gatedIterator(log: string[]): { iterable: AsyncIterable<string>; release: () => void } {
  const gates: (() => void)[] = [];
  let pulls = 0;
  const iterator: AsyncIterator<string, void, undefined> = {
    next: () => {
      const pull = ++pulls;
      log.push(`pull ${pull}`);
      return new Promise((resolve) =>
        gates.push(() => {
          resolve({ value: `event ${pull}`, done: false });
        }),
      );
    },
  };
  return {
    iterable: { [Symbol.asyncIterator]: () => iterator },
    release: () => {
      (gates.shift() as () => void)();
    },
  };
}

describe.each([
  ['minimalShell', minimalShell],
  ['checkedShell', checkedShell],
] as [string, Shell][])('%s', (_name, shell) => {
  it('passes every event through, in order', async () => {
    expect(await drain(shell(events('a', 'b', 'c')))).toEqual(['a', 'b', 'c']);
  });

  it('closes the inner chains it holds, most recent first, before answering the end', async () => {
    const log: string[] = [];
    const shelled = shell(events('a'), heldChains(log, ['outer', 'inner']))[Symbol.asyncIterator]();
    await shelled.next();
    const end = await shelled.next();
    log.push('answered');
    expect({ end, log }).toEqual({ end: { value: undefined, done: true }, log: ['close inner', 'close outer', 'answered'] });
  });
});

describe('checkedShell', () => {
  it('refuses an undefined event', async () => {
    await expect(drain(checkedShell(events<string | undefined>('a', undefined)))).rejects.toThrow('A layer yielded undefined.');
  });

  it('refuses a chain that ends without a result', async () => {
    await expect(drain(checkedShell(events<string>()))).rejects.toThrow('The chain ended without a result.');
  });

  it('starts a call made while another is pending only once that one is answered', async () => {
    const log: string[] = [];
    const { iterable, release } = gatedIterator(log);
    const shelled = checkedShell(iterable)[Symbol.asyncIterator]();
    const first = shelled.next();
    const second = shelled.next();
    await new Promise((resolve) => setTimeout(resolve, 0));
    const whilePending = [...log];
    release();
    const answers = [(await first).value];
    await new Promise((resolve) => setTimeout(resolve, 0));
    release();
    answers.push((await second).value);
    expect({ whilePending, log, answers }).toEqual({
      whilePending: ['pull 1'],
      log: ['pull 1', 'pull 2'],
      answers: ['event 1', 'event 2'],
    });
  });

  it('answers a call after a failed one', async () => {
    const shelled = checkedShell(events<string | undefined>(undefined, 'b'))[Symbol.asyncIterator]();
    await expect(shelled.next()).rejects.toThrow('A layer yielded undefined.');
    expect(await shelled.next()).toEqual({ value: 'b', done: false });
  });
});
