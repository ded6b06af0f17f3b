/**
 * The shells the benchmark's floors are measured with (`bench/floor.ts`): a
 * floor is only worth reporting if the shell does what it says, so each is
 * held to it here, the checked one to every check it claims to make.
 */
import { describe, expect, it } from 'vitest';
import { AbortFlag, checkedShell, guardedShell, minimalShell, type InvokeChecks, type Shell } from '../../bench/floor';

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

/** Accepts the events that are results: strings starting with "result". */
const isResult = (event: unknown): boolean => typeof event === 'string' && event.startsWith('result');

function checks(hold: boolean, flag = new AbortFlag()): InvokeChecks {
  return { flag, guard: isResult, hold };
}

describe.each([
  ['minimalShell', minimalShell],
  ['checkedShell', checkedShell],
  ['guardedShell in pass mode', guardedShell(checks(false))],
  ['guardedShell in hold mode', guardedShell(checks(true))],
] as [string, Shell][])('%s', (_name, shell) => {
  it('passes every event through, in order', async () => {
    expect(await drain(shell(events('a', 'b', 'result c')))).toEqual(['a', 'b', 'result c']);
  });

  it('closes the inner chains it holds, most recent first, before answering the end', async () => {
    const log: string[] = [];
    const shelled = shell(events('result a'), heldChains(log, ['outer', 'inner']))[Symbol.asyncIterator]();
    const first = await shelled.next();
    const end = first.done === true ? first : await shelled.next();
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

describe('guardedShell', () => {
  describe.each([
    ['pass mode', false],
    ['hold mode', true],
  ])('in %s', (_mode, hold) => {
    it('refuses an end whose last event is no result', async () => {
      await expect(drain(guardedShell(checks(hold))(events('result a', 'b')))).rejects.toThrow('The chain ended without a result.');
    });

    it('refuses an undefined event', async () => {
      await expect(drain(guardedShell(checks(hold))(events<string | undefined>('a', undefined)))).rejects.toThrow(
        'A layer yielded undefined.',
      );
    });

    it('fails the next pull when the flag is set between two pulls, pulling nothing more', async () => {
      const flag = new AbortFlag();
      const pulled: string[] = [];
      async function* logged(): AsyncGenerator<string, void, undefined> {
        for (const event of ['a', 'b', 'result c']) {
          pulled.push(event);
          yield event;
        }
      }
      const shelled = guardedShell(checks(hold, flag))(logged())[Symbol.asyncIterator]();
      const first = await shelled.next();
      flag.abort('stop');
      const failure = await shelled.next().then(
        () => undefined,
        (error: unknown) => ({ message: (error as Error).message, cause: (error as Error).cause }),
      );
      expect({ first, failure, pulled }).toEqual({
        first: { value: 'a', done: false },
        failure: { message: 'The invoke was aborted.', cause: 'stop' },
        pulled: ['a'],
      });
    });

    it('fails the pull whose event came after the flag was set', async () => {
      const flag = new AbortFlag();
      async function* aborting(): AsyncGenerator<string, void, undefined> {
        flag.abort('stop');
        yield 'a';
      }
      await expect(drain(guardedShell(checks(hold, flag))(aborting()))).rejects.toThrow('The invoke was aborted.');
    });
  });

  describe('in hold mode', () => {
    it('delivers a candidate only once the next event or the end shows whether it is the last', async () => {
      const log: string[] = [];
      async function* logged(): AsyncGenerator<string, void, undefined> {
        for (const event of ['a', 'result 1', 'result 2', 'b', 'result 3']) {
          log.push(`pull ${event}`);
          yield event;
        }
        log.push('end');
      }
      const shelled = guardedShell(checks(true))(logged())[Symbol.asyncIterator]();
      for (let answer = await shelled.next(); answer.done !== true; answer = await shelled.next()) log.push(`got ${answer.value}`);
      expect(log).toEqual([
        'pull a',
        'got a',
        'pull result 1',
        'pull result 2',
        'got result 1',
        'pull b',
        'got result 2',
        'got b',
        'pull result 3',
        'end',
        'got result 3',
      ]);
    });

    it('calls the guard on every event', async () => {
      const seen: unknown[] = [];
      const guard = (event: unknown): boolean => {
        seen.push(event);
        return isResult(event);
      };
      await drain(guardedShell({ flag: new AbortFlag(), guard, hold: true })(events('a', 'b', 'result c')));
      expect(seen).toEqual(['a', 'b', 'result c']);
    });
  });

  describe('in pass mode', () => {
    it('calls the guard on the last event only', async () => {
      const seen: unknown[] = [];
      const guard = (event: unknown): boolean => {
        seen.push(event);
        return isResult(event);
      };
      await drain(guardedShell({ flag: new AbortFlag(), guard, hold: false })(events('a', 'b', 'result c')));
      expect(seen).toEqual(['result c']);
    });
  });
});
