/**
 * The shells the benchmark's floors are measured with (`bench/floor.ts`): a
 * floor is only worth reporting if the shell does what it says, so each is
 * held to it here, the checked one to every check it claims to make.
 */
import { isDraft } from 'immer';
import { describe, expect, it } from 'vitest';
import {
  AbortFlag,
  callInput,
  callOutput,
  checkedShell,
  checkNext,
  checkOptions,
  enteredLayer,
  guardedShell,
  HeldState,
  instrumentInvoke,
  minimalShell,
  type InvokeChecks,
  type Shell,
} from '../../bench/floor';

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

const RUN = { stage: 'stage', signal: new AbortController().signal, handler: 'handler' };

/** The failure a call or promise ends with, as its message and cause. */
async function failureOf(call: () => unknown): Promise<{ message: string; cause: unknown } | undefined> {
  try {
    await call();
    return undefined;
  } catch (error) {
    return { message: (error as Error).message, cause: (error as Error).cause };
  }
}

describe('callInput', () => {
  it('calls the handler with the context and the run it is given, and answers with what it returned', () => {
    const calls: unknown[] = [];
    const answer = callInput(
      (context: { n: number }, run) => {
        calls.push([context, run]);
        return { n: context.n + 1 };
      },
      { n: 1 },
      RUN,
      new AbortFlag(),
    );
    expect({ answer, calls }).toEqual({ answer: { n: 2 }, calls: [[{ n: 1 }, RUN]] });
  });

  it('awaits a thenable answer', async () => {
    expect(await callInput(async (context: number) => context + 1, 1, RUN, new AbortFlag())).toEqual(2);
  });

  it.each([undefined, null])('refuses %s', async (answer) => {
    expect(await failureOf(() => callInput(() => answer as never, 1, RUN, new AbortFlag()))).toEqual({
      message: 'An Input handler returned no context.',
      cause: undefined,
    });
  });

  it('fails when the flag is set after the handler', async () => {
    const flag = new AbortFlag();
    const handler = (context: number): number => {
      flag.abort('stop');
      return context;
    };
    expect(await failureOf(() => callInput(handler, 1, RUN, flag))).toEqual({ message: 'The invoke was aborted.', cause: 'stop' });
  });
});

describe('callOutput', () => {
  const isBoxed = (value: unknown): boolean => typeof value === 'object' && value !== null && 'boxed' in value;

  it('calls the handler with the result and the run it is given, and answers with what it returned', () => {
    const calls: unknown[] = [];
    const answer = callOutput(
      (result: { boxed: number }, run) => {
        calls.push([result, run]);
        return { boxed: result.boxed + 1 };
      },
      { boxed: 1 },
      RUN,
      isBoxed,
      new AbortFlag(),
    );
    expect({ answer, calls }).toEqual({ answer: { boxed: 2 }, calls: [[{ boxed: 1 }, RUN]] });
  });

  it('awaits a thenable answer and checks what it resolves to', async () => {
    expect(await callOutput(async (result: { boxed: number }) => result, { boxed: 1 }, RUN, isBoxed, new AbortFlag())).toEqual({
      boxed: 1,
    });
    expect(await failureOf(() => callOutput(async () => ({}) as never, { boxed: 1 }, RUN, isBoxed, new AbortFlag()))).toEqual({
      message: 'An Output handler must return a MiddlewareResult.',
      cause: undefined,
    });
  });

  it('refuses an answer the check refuses', async () => {
    expect(await failureOf(() => callOutput(() => 1 as never, { boxed: 1 }, RUN, isBoxed, new AbortFlag()))).toEqual({
      message: 'An Output handler must return a MiddlewareResult.',
      cause: undefined,
    });
  });

  it('fails when the flag is set after the handler', async () => {
    const flag = new AbortFlag();
    const handler = (result: { boxed: number }): { boxed: number } => {
      flag.abort('stop');
      return result;
    };
    expect(await failureOf(() => callOutput(handler, { boxed: 1 }, RUN, isBoxed, flag))).toEqual({
      message: 'The invoke was aborted.',
      cause: 'stop',
    });
  });
});

describe('enteredLayer', () => {
  it('answers with an async generator as it is', () => {
    const generator = events('a');
    expect(enteredLayer(generator)).toBe(generator);
  });

  it.each([
    ['an async iterable without next and return', { [Symbol.asyncIterator]: () => events('a') }],
    ['a promise', Promise.resolve()],
    ['undefined', undefined],
  ])('refuses %s', (_name, layer) => {
    expect(() => enteredLayer(layer)).toThrow('A layer must return an async generator.');
  });
});

describe('checkNext', () => {
  it('passes a call before the invoke settled, with the flag clear', () => {
    expect(() => {
      checkNext({ settled: false }, new AbortFlag());
    }).not.toThrow();
  });

  it('refuses a call after the invoke settled', () => {
    expect(() => {
      checkNext({ settled: true }, new AbortFlag());
    }).toThrow('next() was called after the invoke settled.');
  });

  it('refuses a call once the flag is set', () => {
    const flag = new AbortFlag();
    flag.abort('stop');
    expect(() => {
      checkNext({ settled: false }, flag);
    }).toThrow('The invoke was aborted.');
  });
});

describe('checkOptions', () => {
  const binding = { get: () => ({}), set: () => undefined };

  it('passes a signal and a binding', () => {
    expect(() => {
      checkOptions(new AbortController().signal, binding);
    }).not.toThrow();
  });

  it('refuses a signal without a boolean aborted', () => {
    expect(() => {
      checkOptions({ addEventListener: () => undefined, removeEventListener: () => undefined } as never);
    }).toThrow('options.signal must be an AbortSignal.');
  });

  it('refuses a binding without set()', () => {
    expect(() => {
      checkOptions(new AbortController().signal, { get: () => ({}) } as never);
    }).toThrow('options.state must have get() and set().');
  });
});

describe('HeldState', () => {
  function binding(initial: unknown): { log: unknown[]; get: () => unknown; set: (state: unknown) => void } {
    const log: unknown[] = [];
    return {
      log,
      get: () => {
        log.push('get');
        return initial;
      },
      set: (state) => {
        log.push(['set', state]);
      },
    };
  }

  it('reads the state once and gives each terminal call a draft of its own', () => {
    const state = binding(Object.freeze({ count: 0 }));
    const held = new HeldState(state);
    const first = held.draft() as { count: number };
    const second = held.draft() as { count: number };
    first.count = 1;
    expect({ second: second.count, isDraft: isDraft(first), log: state.log }).toEqual({ second: 0, isDraft: true, log: ['get'] });
  });

  it('writes back the state the last completed call produced, once the invoke succeeds', () => {
    const state = binding(Object.freeze({ count: 0 }));
    const held = new HeldState(state);
    const draft = held.draft() as { count: number };
    draft.count = 1;
    held.complete(draft);
    const before = [...state.log];
    held.succeeded();
    expect({ before, log: state.log, frozen: Object.isFrozen((state.log[1] as unknown[])[1]) }).toEqual({
      before: ['get'],
      log: ['get', ['set', { count: 1 }]],
      frozen: true,
    });
  });

  it('writes nothing back when no terminal call completed', () => {
    const state = binding(Object.freeze({ count: 0 }));
    const held = new HeldState(state);
    held.draft();
    held.succeeded();
    expect(state.log).toEqual(['get']);
  });

  it('refuses a state immer cannot draft', () => {
    expect(() => new HeldState(binding(new Date(0)))).toThrow('The state cannot be drafted.');
  });
});

describe('instrumentInvoke', () => {
  it('calls the instrumentation once with a frozen info of the stage, the context and the signal', () => {
    const infos: unknown[] = [];
    const signal = new AbortController().signal;
    instrumentInvoke(
      {
        invoke: (info) => {
          infos.push(info);
          return undefined;
        },
      },
      'stage',
      'context',
      signal,
    );
    expect({ infos, frozen: Object.isFrozen(infos[0]) }).toEqual({ infos: [{ stage: 'stage', context: 'context', signal }], frozen: true });
  });

  it('refuses an observer', () => {
    expect(() => {
      instrumentInvoke({ invoke: () => ({}) }, 'stage', 'context', new AbortController().signal);
    }).toThrow('The floor runs instrumentations that observe nothing.');
  });
});
