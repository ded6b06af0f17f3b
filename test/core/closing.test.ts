import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, type Next, type Terminal } from '../../src/core/index';
import { failure, fields } from '../assertions';
import { ModelStage as Stage, echo, tracing, type PromptContext as Context } from '../fixtures';

describe('MiddlewareRegistry.invoke', () => {
  describe('early termination by the consumer', () => {
    it('runs finally blocks innermost first on break', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Wrap, tracing(trace, 'outer'));
      registry.add(Stage.Wrap, tracing(trace, 'inner'));
      for await (const event of registry.invoke(Stage, { prompt: 'x' }, endless(trace))) {
        trace.push(`got ${event}`);
        break;
      }
      expect(trace).toEqual(['outer:enter', 'inner:enter', 'got 0', 'terminal:finally', 'inner:finally', 'outer:finally']);
    });

    it('runs finally blocks innermost first on return() and resolves done', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Wrap, tracing(trace, 'outer'));
      const events = registry.invoke(Stage, { prompt: 'x' }, endless(trace));
      await events.next();
      await expect(events.return()).resolves.toEqual({ value: undefined, done: true });
      expect(trace).toEqual(['outer:enter', 'terminal:finally', 'outer:finally']);
      await expect(events.next()).resolves.toEqual({ value: undefined, done: true });
    });

    it('runs finally blocks innermost first on throw() and rejects with the given error', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      const reason = new Error('consumer gave up');
      registry.add(Stage.Wrap, tracing(trace, 'outer'));
      const events = registry.invoke(Stage, { prompt: 'x' }, endless(trace));
      await events.next();
      expect(await failure(events.throw(reason))).toBe(reason);
      expect(trace).toEqual(['outer:enter', 'terminal:finally', 'outer:finally']);
    });

    it('rejects return() with an error a closing layer throws', async () => {
      const registry = new MiddlewareRegistry();
      const problem = new Error('cleanup failed');
      registry.add(Stage.Wrap, async function* leaky(_context, next) {
        try {
          yield* next();
        } finally {
          // eslint-disable-next-line no-unsafe-finally -- the handler under test fails while it closes
          throw problem;
        }
      });
      const events = registry.invoke(Stage, { prompt: 'x' }, endless([]));
      await events.next();
      expect(await failure(events.return())).toBe(problem);
    });

    it('closes every abandoned inner chain on return(), rejecting with the error one of them throws', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      const problem = new Error('cleanup failed');
      registry.add(Stage.Wrap, async function* side(_context, next) {
        await next({ prompt: 'first' }).next();
        await next({ prompt: 'second' }).next();
        yield 'own';
        yield 'more';
      });
      const events = registry.invoke(Stage, { prompt: 'x' }, async function* terminal(context) {
        try {
          yield 'one';
          yield 'two';
        } finally {
          trace.push(`close ${context.prompt}`);
          // eslint-disable-next-line no-unsafe-finally -- the handler under test fails while it closes
          if (context.prompt === 'second') throw problem;
        }
      });
      await events.next();
      expect(await failure(events.return())).toBe(problem);
      expect(trace).toEqual(['close second', 'close first']);
    });

    it('closes abandoned inner chains on return()', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Wrap, async function* side(_context, next) {
        await next({ prompt: 'side' }).next();
        yield* next();
      });
      const events = registry.invoke(Stage, { prompt: 'x' }, endless(trace));
      await events.next();
      await events.return();
      expect(trace).toEqual(['terminal:finally', 'terminal:finally']);
    });
  });

  describe('inner chains left open', () => {
    it('are closed when the chain completes, most recent first, before the Output phase', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Output, (result) => (trace.push('output'), result));
      registry.add(Stage.Wrap, async function* abandons(_context, next) {
        await next({ prompt: 'a' }).next();
        await next({ prompt: 'b' }).next();
        yield 'own';
      });
      const result = await registry.run(Stage, { prompt: 'x' }, async function* terminal(context) {
        try {
          yield `${context.prompt}1`;
          yield `${context.prompt}2`;
        } finally {
          trace.push(`close ${context.prompt}`);
        }
      });
      expect({ result, trace }).toEqual({ result: 'own', trace: ['close b', 'close a', 'output'] });
    });

    it('are closed before an error reaches the consumer', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Wrap, async function* abandons(_context, next) {
        await next().next();
        throw new Error('handler failed');
      });
      const events = registry.invoke(Stage, { prompt: 'x' }, endless(trace));
      await expect(events.next()).rejects.toThrow('handler failed');
      expect(trace).toEqual(['terminal:finally']);
    });
  });

  describe('many inner chains', () => {
    it("hands out the inner layers' own generators for the first 32 chains, and wrappers forwarding them after", async () => {
      const registry = new MiddlewareRegistry();
      const own: unknown[] = [];
      const received: unknown[] = [];
      registry.add(Stage.Wrap, async function* many(_context, next) {
        for (let call = 0; call < 34; call++) {
          const inner = next();
          received.push(inner);
          for await (const event of inner) if (call === 33) yield event;
        }
      });
      const result = await registry.run(Stage, { prompt: 'x' }, (context) => {
        const generator = (async function* terminal() {
          yield context.prompt;
        })();
        own.push(generator);
        return generator;
      });
      expect(result).toBe('x');
      expect(received.map((generator, index) => generator === own[index])).toEqual([...Array<boolean>(32).fill(true), false, false]);
    });

    it('fails with the error a later chain throws while it is closed at settle, after closing the first ones', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      const closing = new Error('finally failed');
      registry.add(Stage.Wrap, async function* many(_context, next) {
        for (let call = 0; call < 33; call++) await next({ prompt: String(call) }).next();
        yield 'own';
      });
      const error = await failure(
        registry.run(Stage, { prompt: 'x' }, async function* terminal(context) {
          try {
            yield context.prompt;
            yield 'more';
          } finally {
            trace.push(context.prompt);
            // eslint-disable-next-line no-unsafe-finally -- the handler under test fails while it closes
            if (context.prompt === '32') throw closing;
          }
        }),
      );
      expect({ error, closed: trace.length, first: trace[0], last: trace.at(-1) }).toEqual({
        error: closing,
        closed: 33,
        first: '32',
        last: '0',
      });
    });

    it('regression: closes again at settle only the first 32 chains, not the later ones that ended', async () => {
      const registry = new MiddlewareRegistry();
      let closings = 0;
      registry.add(Stage.Wrap, async function* many(_context, next) {
        for (let call = 0; call < 40; call++) for await (const _event of next());
        yield 'own';
      });
      const result = await registry.run(Stage, { prompt: 'x' }, (context) => {
        const inner = (async function* terminal() {
          yield context.prompt;
        })();
        const iterator = {
          [Symbol.asyncIterator]: () => iterator,
          next: () => inner.next(),
          return: () => (closings++, inner.return(undefined)),
        };
        return iterator as unknown as AsyncGenerator<string, void, undefined>;
      });
      expect({ result, closings }).toEqual({ result: 'own', closings: 32 });
    });
  });

  describe('next() after the invoke settled', () => {
    it('throws ERR_NEXT_AFTER_SETTLE naming the handler', async () => {
      const registry = new MiddlewareRegistry();
      let kept: Next<Context, string> | undefined;
      registry.add(Stage.Wrap, async function* keeper(_context, next) {
        kept = next;
        yield* next();
      });
      await registry.run(Stage, { prompt: 'x' }, echo);
      let thrown: unknown;
      try {
        (kept as Next<Context, string>)();
      } catch (error) {
        thrown = error;
      }
      expect(fields(thrown)).toEqual({ code: 'ERR_NEXT_AFTER_SETTLE', stage: 'model', phase: 'wrap', handler: 'keeper' });
      expect((thrown as Error).message).toBe(
        '[ERR_NEXT_AFTER_SETTLE] Wrap handler "keeper" of stage "model" called next() after the invoke had settled. Call next() only while the handler runs; do not keep it for later (in a timer or a stored callback).',
      );
    });

    it.each([
      ['after the handler started an inner chain', true],
      ['when the handler started no inner chain', false],
    ])('throws when an Output handler calls a kept next after the chain ended, before the invoke settled, %s', async (_label, calls) => {
      const registry = new MiddlewareRegistry();
      let kept: Next<Context, string> | undefined;
      let thrown: unknown;
      let terminalCalls = 0;
      registry.add(Stage.Output, (result) => {
        try {
          (kept as Next<Context, string>)();
        } catch (error) {
          thrown = error;
        }
        return result;
      });
      registry.add(Stage.Wrap, async function* keeper(_context, next) {
        kept = next;
        if (calls) yield* next();
        else yield 'own';
      });
      const result = await registry.run(Stage, { prompt: 'x' }, async function* counted(context) {
        terminalCalls++;
        yield context.prompt;
      });
      expect({ result, thrown: fields(thrown), terminalCalls }).toEqual({
        result: calls ? 'x' : 'own',
        thrown: { code: 'ERR_NEXT_AFTER_SETTLE', stage: 'model', phase: 'wrap', handler: 'keeper' },
        terminalCalls: calls ? 1 : 0,
      });
    });

    it('throws after an error or a close too', async () => {
      const registry = new MiddlewareRegistry();
      const kept: Next<Context, string>[] = [];
      registry.add(Stage.Wrap, async function* keeper(_context, next) {
        kept.push(next);
        yield* next();
      });
      await failure(registry.run(Stage, { prompt: 'x' }, failingTerminal(new Error('x'))));
      const events = registry.invoke(Stage, { prompt: 'x' }, endless([]));
      await events.next();
      await events.return();
      const codes = kept.map((next) => {
        try {
          next();
          return 'no error';
        } catch (error) {
          return (error as MiddlewareError).code;
        }
      });
      expect(codes).toEqual(['ERR_NEXT_AFTER_SETTLE', 'ERR_NEXT_AFTER_SETTLE']);
    });
  });
});

function failingTerminal(error: unknown): Terminal<Context, string> {
  return async function* failing() {
    throw error;
  };
}

function endless(trace: string[]): Terminal<Context, string> {
  return async function* terminal() {
    try {
      for (let index = 0; ; index++) yield String(index);
    } finally {
      trace.push('terminal:finally');
    }
  };
}
