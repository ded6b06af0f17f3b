import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, MiddlewareResult, type Terminal, type WrapHandler } from '../../src/index';
import { failure, fields } from '../assertions';
import { anotherCopy } from '../copies';
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

  describe('contract errors', () => {
    it.each([
      [
        'a plain async function',
        async () => 'value',
        'returned a promise, not an async iterable. It looks like a plain async function: write it as `async function*`',
      ],
      [
        'an array',
        () => ['a'],
        'returned an array of length 1, not an async iterable. A synchronous iterable (an array or a `function*` generator) cannot stream',
      ],
      [
        'a sync generator',
        function* sync() {
          yield 'a';
        },
        'returned a synchronous iterator (a `function*` generator?), not an async iterable. A synchronous iterable (an array or a `function*` generator) cannot stream: write it as `async function*`.',
      ],
      [
        'undefined',
        () => undefined,
        'returned undefined, not an async iterable. Write it as `async function*` and forward the inner events with `yield* next()`.',
      ],
    ])('reject a Wrap handler returning %s with ERR_INVALID_HANDLER and a hint', async (_label, handler, text) => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, handler as never, { name: 'wrong' });
      const error = await failure(registry.run(Stage, { prompt: 'x' }, echo));
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'wrap', handler: 'wrong' });
      expect((error as Error).message).toContain(`Wrap handler "wrong" of stage "model" ${text}`);
    });

    it('rejects an inner Wrap handler returning a non-iterable when next() is called', async () => {
      const registry = new MiddlewareRegistry();
      let thrownAtNext: unknown;
      registry.add(Stage.Wrap, async function* outer(_context, next) {
        try {
          next();
        } catch (error) {
          thrownAtNext = error;
        }
        yield 'recovered';
      });
      registry.add(Stage.Wrap, (() => 42) as never, { name: 'numeric' });
      await expect(registry.run(Stage, { prompt: 'x' }, echo)).resolves.toBe('recovered');
      expect(fields(thrownAtNext)).toEqual({ code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'wrap', handler: 'numeric' });
    });

    it.each([
      ['null', 'Wrap handler', null],
      ['undefined', 'terminal', undefined],
      ['null', 'terminal', null],
    ])('reject a %s returned by a %s with ERR_INVALID_HANDLER', async (got, which, produced) => {
      const registry = new MiddlewareRegistry();
      if (which === 'Wrap handler') registry.add(Stage.Wrap, (() => produced) as never, { name: 'wrong' });
      const error = await failure(registry.run(Stage, { prompt: 'x' }, which === 'terminal' ? ((() => produced) as never) : echo));
      expect(fields(error)).toEqual(
        which === 'terminal'
          ? { code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'terminal', handler: 'terminal' }
          : { code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'wrap', handler: 'wrong' },
      );
      expect((error as Error).message).toContain(`returned ${got}, not an async iterable.`);
    });

    it('rejects a terminal returning a non-iterable with ERR_INVALID_HANDLER', async () => {
      const error = await failure(new MiddlewareRegistry().run(Stage, { prompt: 'x' }, (async () => 'text') as never));
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'terminal', handler: 'terminal' });
      expect((error as Error).message).toContain(
        'The terminal of stage "model" returned a promise, not an async iterable. It looks like a plain async function: write it as `async function*` and yield its events.',
      );
    });

    it.each([
      ['undefined', () => undefined, 'undefined'],
      ['null', () => null, 'null'],
      ['a promise of undefined', async () => undefined, 'undefined'],
    ])('reject an Input handler returning %s with ERR_INPUT_CONTRACT', async (_label, handler, got) => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Input, handler as never, { name: 'forgetful' });
      const error = await failure(registry.run(Stage, { prompt: 'x' }, echo));
      expect(fields(error)).toEqual({ code: 'ERR_INPUT_CONTRACT', stage: 'model', phase: 'input', handler: 'forgetful' });
      expect((error as Error).message).toBe(
        `[ERR_INPUT_CONTRACT] Input handler "forgetful" of stage "model" returned ${got}. An Input handler must return the context (the one it received, or a new one). Did you forget to \`return context\`?`,
      );
    });

    it.each([
      ['a raw value', () => 'raw', 'the string "raw"'],
      ['a promise of a raw value', async () => 'raw', 'the string "raw"'],
      ['undefined', () => undefined, 'undefined'],
      ['a lookalike object', () => ({ value: 'x' }), 'a plain object'],
    ])('reject an Output handler returning %s with ERR_OUTPUT_CONTRACT', async (_label, handler, got) => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Output, handler as never, { name: 'sloppy' });
      const error = await failure(registry.run(Stage, { prompt: 'x' }, echo));
      expect(fields(error)).toEqual({ code: 'ERR_OUTPUT_CONTRACT', stage: 'model', phase: 'output', handler: 'sloppy' });
      expect((error as Error).message).toBe(
        `[ERR_OUTPUT_CONTRACT] Output handler "sloppy" of stage "model" returned ${got}, not a MiddlewareResult. Return the result it received, or \`result.replace(value)\` / \`result.update(recipe)\`.`,
      );
    });

    it('accepts a MiddlewareResult of another copy of the package', async () => {
      const other = await anotherCopy();
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Output, () => new other.MiddlewareResult('foreign'));
      await expect(registry.run(Stage, { prompt: 'x' }, echo)).resolves.toBe('foreign');
    });

    it('rejects a lookalike result carrying a marker property with ERR_OUTPUT_CONTRACT', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Output, function forger() {
        return { [Symbol.for('staged-middleware.result')]: true, value: 'forged' } as unknown as MiddlewareResult<string>;
      });
      expect(fields(await failure(registry.run(Stage, { prompt: 'x' }, echo)))).toEqual({
        code: 'ERR_OUTPUT_CONTRACT',
        stage: 'model',
        phase: 'output',
        handler: 'forger',
      });
    });

    it('passes on a context with a non-function then property as it is', async () => {
      const registry = new MiddlewareRegistry();
      const odd = { prompt: 'odd', then: 'not callable' };
      let seen: unknown;
      registry.add(Stage.Input, () => odd);
      await registry.run(Stage, { prompt: 'x' }, async function* terminal(context) {
        seen = context;
        yield context.prompt;
      });
      expect(seen).toBe(odd);
    });
  });
});

function failingTerminal(error: unknown): Terminal<Context, string> {
  return async function* failing() {
    throw error;
  };
}
