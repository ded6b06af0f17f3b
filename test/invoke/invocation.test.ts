import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, type Terminal } from '../../src/index';
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
