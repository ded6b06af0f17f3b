import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, type Terminal, type WrapHandler } from '../../src/core/index';
import { deferred } from '../assertions';
import { ModelStage as Stage, type PromptContext as Context } from '../fixtures';

function counted(trace: string[], count: number): Terminal<Context, string> {
  return async function* terminal() {
    try {
      for (let index = 1; index <= count; index++) {
        // A real await between events, so pulls are genuinely pending.
        await new Promise((resolve) => setTimeout(resolve, 1));
        trace.push(`yield ${index}`);
        yield String(index);
      }
    } finally {
      trace.push('terminal:finally');
    }
  };
}

describe('MiddlewareRegistry.invoke', () => {
  describe('[Symbol.asyncIterator] of the returned generator', () => {
    it('returns the invoke itself', () => {
      const events = new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, counted([], 1));
      expect(events[Symbol.asyncIterator]()).toBe(events);
    });
  });

  describe('next of the returned generator', () => {
    it('queues calls made while one is pending and settles them in order', async () => {
      const trace: string[] = [];
      const events = new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, counted(trace, 2));
      const pulls = [events.next(), events.next(), events.next(), events.next()];
      expect(await Promise.all(pulls)).toEqual([
        { value: '1', done: false },
        { value: '2', done: false },
        { value: undefined, done: true },
        { value: undefined, done: true },
      ]);
      expect(trace).toEqual(['yield 1', 'yield 2', 'terminal:finally']);
    });

    it('queues calls in hold mode as well', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Output, (result) => result.replace(`${result.value}!`));
      const events = registry.invoke(Stage, { prompt: 'x' }, counted([], 3));
      expect(await Promise.all([events.next(), events.next(), events.next(), events.next()])).toEqual([
        { value: '1', done: false },
        { value: '2', done: false },
        { value: '3!', done: false },
        { value: undefined, done: true },
      ]);
    });

    it('keeps settling queued calls after one rejects', async () => {
      const problem = new Error('down');
      const events = new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, async function* terminal() {
        yield 'one';
        throw problem;
      });
      const outcomes = await Promise.allSettled([events.next(), events.next(), events.next()]);
      expect(outcomes).toEqual([
        { status: 'fulfilled', value: { value: 'one', done: false } },
        { status: 'rejected', reason: problem },
        { status: 'fulfilled', value: { value: undefined, done: true } },
      ]);
    });
  });

  describe('a call made while the end of the chain is still being answered', () => {
    /** A Wrap handler that leaves the inner chain it started open, so that the invoke closes it at the end (MW-016). */
    const abandons: WrapHandler<Context, string> = async function* abandons(_context, next) {
      await next().next();
      yield 'own';
    };
    /** The same as a hand-written iterator, not a generator: the invoke pulls it the general way (MW-012). */
    const handWritten: WrapHandler<Context, string> = function handWritten(_context, next) {
      let given = false;
      const layer: AsyncIterator<string, void> & AsyncIterable<string> = {
        [Symbol.asyncIterator]() {
          return layer;
        },
        async next(): Promise<IteratorResult<string, void>> {
          if (given) return { value: undefined, done: true };
          given = true;
          await next().next();
          return { value: 'own', done: false };
        },
        async return(): Promise<IteratorResult<string, void>> {
          return { value: undefined, done: true };
        },
      };
      return layer;
    };
    const waitsFor = (gate: Promise<void>): Terminal<Context, string> =>
      async function* terminal() {
        try {
          yield 'a';
          yield 'b';
        } finally {
          await gate;
        }
      };

    it.each([
      ['the inner chains are closed, after a native outermost layer', abandons, 'closing'],
      ['the inner chains are closed, after a hand-written outermost layer', handWritten, 'closing'],
      ['the asynchronous Output phase runs, after the inner chains were closed', abandons, 'output'],
    ] as const)('waits while %s', async (_case, wrap, waitingOn) => {
      const registry = new MiddlewareRegistry();
      const gate = deferred();
      registry.add(Stage.Wrap, wrap);
      // An Output handler holds the one event back, so that the first pull is the one meeting the end of the chain.
      registry.add(Stage.Output, async (result) => {
        if (waitingOn === 'output') await gate.promise;
        return result;
      });
      const events = registry.invoke(Stage, { prompt: 'x' }, waitsFor(waitingOn === 'closing' ? gate.promise : Promise.resolve()));
      const ending = events.next();
      // Every promise job runs: the pull met the end of the chain and waits at the gate.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const after = events.next();
      gate.resolve();
      expect(await Promise.all([ending, after])).toEqual([
        { value: 'own', done: false },
        { value: undefined, done: true },
      ]);
    });
  });

  describe('return of the returned generator', () => {
    it('runs nothing when called before the first next()', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Input, (context) => (trace.push('input'), context));
      const events = registry.invoke(Stage, { prompt: 'x' }, counted(trace, 2));
      await expect(events.return()).resolves.toEqual({ value: undefined, done: true });
      await expect(events.next()).resolves.toEqual({ value: undefined, done: true });
      expect(trace).toEqual([]);
    });

    it('waits for a pending next() and then closes the layers', async () => {
      const trace: string[] = [];
      const events = new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, counted(trace, 5));
      const first = events.next();
      const closed = events.return();
      const after = events.next();
      expect(await Promise.all([first, closed, after])).toEqual([
        { value: '1', done: false },
        { value: undefined, done: true },
        { value: undefined, done: true },
      ]);
      expect(trace).toEqual(['yield 1', 'terminal:finally']);
    });

    it('is harmless after the end', async () => {
      const trace: string[] = [];
      const events = new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, counted(trace, 1));
      for await (const _event of events) {
        // drain
      }
      await expect(events.return()).resolves.toEqual({ value: undefined, done: true });
      expect(trace).toEqual(['yield 1', 'terminal:finally']);
    });
  });

  describe('throw of the returned generator', () => {
    it('rejects with the given error without running anything before the first next()', async () => {
      const trace: string[] = [];
      const problem = new Error('not needed');
      const events = new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, counted(trace, 1));
      await expect(events.throw(problem)).rejects.toBe(problem);
      await expect(events.next()).resolves.toEqual({ value: undefined, done: true });
      expect(trace).toEqual([]);
    });

    it('waits for a pending next(), closes the layers, then rejects', async () => {
      const trace: string[] = [];
      const problem = new Error('stop');
      const events = new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, counted(trace, 5));
      const outcomes = await Promise.allSettled([events.next(), events.throw(problem)]);
      expect(outcomes).toEqual([
        { status: 'fulfilled', value: { value: '1', done: false } },
        { status: 'rejected', reason: problem },
      ]);
      expect(trace).toEqual(['yield 1', 'terminal:finally']);
    });
  });

  describe('[Symbol.asyncDispose] of the returned generator', () => {
    it('closes the invoke like return()', async () => {
      const trace: string[] = [];
      const events = new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, counted(trace, 5));
      await events.next();
      await (events as unknown as AsyncDisposable)[Symbol.asyncDispose]();
      expect(trace).toEqual(['yield 1', 'terminal:finally']);
      await expect(events.next()).resolves.toEqual({ value: undefined, done: true });
    });
  });
});
