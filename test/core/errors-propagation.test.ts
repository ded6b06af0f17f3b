import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, type Terminal, type WrapHandler } from '../../src/core/index';
import { failure } from '../assertions';
import { ModelStage as Stage, echo, tracing, type PromptContext as Context } from '../fixtures';

/** A Wrap handler named `leaky` whose `finally` throws `replacement`, whatever the inner layers did. */
function throwingOnClose(replacement: Error): WrapHandler<Context, string> {
  return async function* leaky(_context, next) {
    try {
      yield* next();
    } finally {
      // eslint-disable-next-line no-unsafe-finally -- the handler under test fails while it closes
      throw replacement;
    }
  };
}

function failingTerminal(error: unknown): Terminal<Context, string> {
  return async function* failing() {
    throw error;
  };
}

describe('MiddlewareRegistry.invoke', () => {
  describe('errors of handlers and the terminal', () => {
    it.each([
      ['the terminal', (registry: MiddlewareRegistry, error: unknown) => ({ registry, terminal: failingTerminal(error) })],
      [
        'an Input handler',
        (registry: MiddlewareRegistry, error: unknown) => {
          registry.add(Stage.Input, () => {
            throw error;
          });
          return { registry, terminal: echo };
        },
      ],
      [
        'an Output handler',
        (registry: MiddlewareRegistry, error: unknown) => {
          registry.add(Stage.Output, async () => {
            throw error;
          });
          return { registry, terminal: echo };
        },
      ],
      [
        'a Wrap handler',
        (registry: MiddlewareRegistry, error: unknown) => {
          registry.add(Stage.Wrap, async function* broken() {
            yield 'partial';
            throw error;
          });
          return { registry, terminal: echo };
        },
      ],
      [
        'a Wrap handler before it yields',
        (registry: MiddlewareRegistry, error: unknown) => {
          registry.add(Stage.Wrap, () => {
            throw error;
          });
          return { registry, terminal: echo };
        },
      ],
    ])('pass the error of %s through as the same object', async (_label, arrange) => {
      for (const thrown of [new TypeError('broken'), 'a plain string', { code: 'CUSTOM' }]) {
        const { registry, terminal } = arrange(new MiddlewareRegistry(), thrown);
        expect(await failure(registry.run(Stage, { prompt: 'x' }, terminal))).toBe(thrown);
      }
    });

    it('let an outer handler recover, and Output runs on the recovered result', async () => {
      const registry = new MiddlewareRegistry();
      const caught: unknown[] = [];
      const problem = new Error('model down');
      registry.add(Stage.Output, (result) => result.replace(`${result.value}!`));
      registry.add(Stage.Wrap, async function* fallback(_context, next) {
        try {
          yield* next();
        } catch (error) {
          caught.push(error);
          yield 'fallback';
        }
      });
      await expect(registry.run(Stage, { prompt: 'x' }, failingTerminal(problem))).resolves.toBe('fallback!');
      expect(caught).toEqual([problem]);
      expect(caught[0]).toBe(problem);
    });

    it('let an outer handler rethrow the same error', async () => {
      const registry = new MiddlewareRegistry();
      const problem = new Error('model down');
      registry.add(Stage.Wrap, async function* rethrow(_context, next) {
        // eslint-disable-next-line no-useless-catch -- the handler under test catches and rethrows
        try {
          yield* next();
        } catch (error) {
          throw error;
        }
      });
      expect(await failure(registry.run(Stage, { prompt: 'x' }, failingTerminal(problem)))).toBe(problem);
    });

    it('skip the Output phase', async () => {
      const registry = new MiddlewareRegistry();
      let outputs = 0;
      registry.add(Stage.Output, (result) => (outputs++, result));
      await failure(registry.run(Stage, { prompt: 'x' }, failingTerminal(new Error('x'))));
      expect(outputs).toBe(0);
    });

    it('close every layer innermost first', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Wrap, tracing(trace, 'outer'));
      registry.add(Stage.Wrap, tracing(trace, 'inner'));
      await failure(
        registry.run(Stage, { prompt: 'x' }, async function* terminal() {
          try {
            yield 'partial';
            throw new Error('late');
          } finally {
            trace.push('terminal:finally');
          }
        }),
      );
      expect(trace).toEqual(['outer:enter', 'inner:enter', 'terminal:finally', 'inner:finally', 'outer:finally']);
    });

    it('are replaced by an error thrown while a layer closes, as in nested generators', async () => {
      const registry = new MiddlewareRegistry();
      const replacement = new Error('cleanup failed');
      registry.add(Stage.Wrap, throwingOnClose(replacement));
      expect(await failure(registry.run(Stage, { prompt: 'x' }, failingTerminal(new Error('original'))))).toBe(replacement);
    });

    it('let an error thrown while closing the open layers replace a contract error', async () => {
      const registry = new MiddlewareRegistry();
      const replacement = new Error('cleanup failed');
      registry.add(Stage.Wrap, throwingOnClose(replacement));
      const result = registry.run(Stage, { prompt: 'x' }, async function* terminal() {
        yield undefined as unknown as string;
      });
      expect(await failure(result)).toBe(replacement);
    });

    it('are replaced by an error thrown while an abandoned inner chain closes', async () => {
      const registry = new MiddlewareRegistry();
      const replacement = new Error('cleanup failed');
      registry.add(Stage.Wrap, async function* abandons(_context, next) {
        await next().next();
        throw new Error('original');
      });
      const result = registry.run(Stage, { prompt: 'x' }, async function* terminal() {
        try {
          yield 'one';
          yield 'two';
        } finally {
          // eslint-disable-next-line no-unsafe-finally -- the handler under test fails while it closes
          throw replacement;
        }
      });
      expect(await failure(result)).toBe(replacement);
    });
  });

  describe('a hand-written outermost layer', () => {
    function handWritten(next: () => unknown, closed: string[]): AsyncGenerator<string, void, undefined> {
      const iterator = {
        [Symbol.asyncIterator]: () => iterator,
        next,
        return: () => (closed.push('return'), Promise.resolve({ value: undefined, done: true })),
        throw: () => Promise.resolve({ value: undefined, done: true }),
      };
      return iterator as unknown as AsyncGenerator<string, void, undefined>;
    }

    it('gives a rejected next(), not a synchronous throw, when its next() throws synchronously', async () => {
      const thrown = new Error('thrown by next');
      const closed: string[] = [];
      let pulls = 0;
      const events = new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, () =>
        handWritten(() => {
          if (pulls++ === 0) return Promise.resolve({ value: 'first', done: false });
          throw thrown;
        }, closed),
      );
      // The second pull is the one a per-event shortcut would take.
      expect(await events.next()).toEqual({ value: 'first', done: false });
      let pending: Promise<unknown> | undefined;
      let synchronous: unknown;
      try {
        pending = events.next();
      } catch (error) {
        synchronous = error;
      }
      expect({ synchronous, rejection: await failure(pending as Promise<unknown>), closed }).toEqual({
        synchronous: undefined,
        rejection: thrown,
        closed: [],
      });
    });

    it.each([
      ['rejected', (thrown: Error) => () => Promise.reject(thrown)],
      [
        'threw synchronously',
        (thrown: Error) => () => {
          throw thrown;
        },
      ],
    ])('is not closed with return() after its next() %s: it has ended', async (_label, make) => {
      const thrown = new Error('failed pull');
      const closed: string[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Output, (result) => result);
      const error = await failure(registry.run(Stage, { prompt: 'x' }, () => handWritten(make(thrown), closed)));
      expect({ error, closed }).toEqual({ error: thrown, closed: [] });
    });
  });
});
