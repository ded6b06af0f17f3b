import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareError, MiddlewareRegistry, MiddlewareResult, type Next, type Terminal, type WrapHandler } from '../src/index';

interface Context {
  readonly prompt: string;
}
const Stage = createStage<Context, string>('model');

const echo: Terminal<Context, string> = async function* terminal(context) {
  yield context.prompt;
};

function tracing(trace: string[], name: string): WrapHandler<Context, string> {
  return async function* traced(_context, next) {
    trace.push(`${name}:enter`);
    try {
      yield* next();
      trace.push(`${name}:exit`);
    } finally {
      trace.push(`${name}:finally`);
    }
  };
}

async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const seen: T[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

function fields(error: unknown): Record<string, unknown> {
  expect(MiddlewareError.isInstance(error)).toBe(true);
  const { code, stage, phase, handler } = error as MiddlewareError;
  return { code, stage, phase, handler };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe('MiddlewareRegistry.invoke', () => {
  describe('phases', () => {
    it('runs Input, then the Wrap onion around the terminal, then Output innermost-first', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Output, (result) => {
        trace.push(`outputA sees ${result.value}`);
        return result.replace(`${result.value}+A`);
      });
      registry.add(Stage.Output, (result) => {
        trace.push(`outputB sees ${result.value}`);
        return result.replace(`${result.value}+B`);
      });
      registry.add(Stage.Input, (context) => {
        trace.push(`input1 sees ${context.prompt}`);
        return { prompt: `${context.prompt}+1` };
      });
      registry.add(Stage.Input, (context) => {
        trace.push(`input2 sees ${context.prompt}`);
        return { prompt: `${context.prompt}+2` };
      });
      registry.add(Stage.Wrap, tracing(trace, 'outer'));
      registry.add(Stage.Wrap, tracing(trace, 'inner'));
      const events = await collect(
        registry.invoke(Stage, { prompt: 'p' }, async function* terminal(context) {
          trace.push(`terminal sees ${context.prompt}`);
          yield context.prompt;
        }),
      );
      expect(trace).toEqual([
        'input1 sees p',
        'input2 sees p+1',
        'outer:enter',
        'inner:enter',
        'terminal sees p+1+2',
        'inner:exit',
        'inner:finally',
        'outer:exit',
        'outer:finally',
        'outputB sees p+1+2',
        'outputA sees p+1+2+B',
      ]);
      expect(events).toEqual(['p+1+2+B+A']);
    });

    it('awaits asynchronous Input and Output handlers', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Input, async (context) => ({ prompt: `${context.prompt}!` }));
      registry.add(Stage.Output, async (result) => result.replace(result.value.toUpperCase()));
      await expect(registry.run(Stage, { prompt: 'hi' }, echo)).resolves.toBe('HI!');
    });

    it('runs Input and Output once even when a Wrap handler retries', async () => {
      const registry = new MiddlewareRegistry();
      const counts = { input: 0, output: 0, terminal: 0 };
      registry.add(Stage.Input, (context) => (counts.input++, context));
      registry.add(Stage.Output, (result) => (counts.output++, result));
      registry.add(Stage.Wrap, async function* retry(_context, next) {
        for (let attempt = 0; attempt < 3; attempt++) {
          try {
            yield* next();
            return;
          } catch {
            // try again
          }
        }
      });
      const result = await registry.run(Stage, { prompt: 'x' }, async function* flaky(context) {
        counts.terminal++;
        if (counts.terminal < 3) throw new Error('flaky');
        yield `${context.prompt} on try ${counts.terminal}`;
      });
      expect({ result, counts }).toEqual({ result: 'x on try 3', counts: { input: 1, output: 1, terminal: 3 } });
    });

    it('gives the context a handler received to next() called without one', async () => {
      const registry = new MiddlewareRegistry();
      const original = { prompt: 'same' };
      let seen: unknown;
      registry.add(Stage.Wrap, async function* forward(_context, next) {
        yield* next(undefined);
      });
      await registry.run(Stage, original, async function* terminal(context) {
        seen = context;
        yield context.prompt;
      });
      expect(seen).toBe(original);
    });

    it('passes a replaced context given to next() to the inner layers and terminal', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Wrap, async function* rewrite(context, next) {
        yield* next({ prompt: `${context.prompt} (rewritten)` });
      });
      registry.add(Stage.Wrap, async function* observe(context, next) {
        trace.push(`inner sees ${context.prompt}`);
        yield* next();
      });
      await expect(registry.run(Stage, { prompt: 'x' }, echo)).resolves.toBe('x (rewritten)');
      expect(trace).toEqual(['inner sees x (rewritten)']);
    });

    it('gives Wrap handlers their stage, signal and name', async () => {
      const registry = new MiddlewareRegistry();
      const controller = new AbortController();
      let run: unknown;
      registry.add(Stage.Wrap, async function* named(_context, next, info) {
        run = info;
        yield* next();
      });
      await registry.run(Stage, { prompt: 'x' }, echo, { signal: controller.signal });
      expect(run).toEqual({ stage: Stage, signal: controller.signal, handler: 'named' });
    });

    it('gives the terminal a signal that never aborts when the caller gave none', async () => {
      let signal: AbortSignal | undefined;
      await new MiddlewareRegistry().run(Stage, { prompt: 'x' }, async function* terminal(context, run) {
        signal = run.signal;
        expect(run).toEqual({ stage: Stage, signal: run.signal, state: undefined });
        yield context.prompt;
      });
      expect(signal?.aborted).toBe(false);
    });
  });

  describe('Wrap handlers', () => {
    it('short-circuit without calling next, and Output still runs', async () => {
      const registry = new MiddlewareRegistry();
      let terminalCalls = 0;
      registry.add(Stage.Output, (result) => result.replace(`${result.value}!`));
      registry.add(Stage.Wrap, async function* cached() {
        yield 'from cache';
      });
      const result = await registry.run(Stage, { prompt: 'x' }, async function* terminal() {
        terminalCalls++;
        yield 'fresh';
      });
      expect({ result, terminalCalls }).toEqual({ result: 'from cache!', terminalCalls: 0 });
    });

    it('filter, inject and replace events', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* rewrite(_context, next) {
        yield 'started';
        for await (const event of next()) {
          if (event.startsWith('debug')) continue;
          yield event === 'draft' ? 'DRAFT' : event;
        }
      });
      const events = await collect(
        registry.invoke(Stage, { prompt: 'x' }, async function* terminal() {
          yield 'draft';
          yield 'debug: tokens 5';
          yield 'final';
        }),
      );
      expect(events).toEqual(['started', 'DRAFT', 'final']);
    });

    it('hedge with concurrent next() calls running independent inner chains', async () => {
      const registry = new MiddlewareRegistry();
      const slowStarted = deferred();
      const fastDone = deferred();
      const trace: string[] = [];
      registry.add(Stage.Wrap, async function* hedge(_context, next) {
        const slow = next({ prompt: 'slow' });
        const fast = next({ prompt: 'fast' });
        const [slowFirst, fastFirst] = await Promise.all([slow.next(), fast.next()]);
        yield `${String(fastFirst.value)} and ${String(slowFirst.value)}`;
      });
      registry.add(Stage.Wrap, async function* inner(context, next) {
        trace.push(`inner ${context.prompt}`);
        yield* next();
      });
      const result = await registry.run(Stage, { prompt: 'x' }, async function* terminal(context) {
        if (context.prompt === 'slow') {
          slowStarted.resolve();
          // Waits until the fast chain has run: impossible if the chains ran one after the other.
          await fastDone.promise;
        } else {
          await slowStarted.promise;
          fastDone.resolve();
        }
        yield context.prompt;
      });
      expect(result).toBe('fast and slow');
      expect(trace).toEqual(['inner slow', 'inner fast']);
    });

    it('run a fresh inner chain on every next() call', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Wrap, async function* twice(_context, next) {
        const first = await collect(next({ prompt: 'a' }));
        const second = await collect(next({ prompt: 'b' }));
        yield [...first, ...second].join(',');
      });
      registry.add(Stage.Wrap, tracing(trace, 'inner'));
      await expect(registry.run(Stage, { prompt: 'x' }, echo)).resolves.toBe('a,b');
      expect(trace).toEqual(['inner:enter', 'inner:exit', 'inner:finally', 'inner:enter', 'inner:exit', 'inner:finally']);
    });

    it('accept async iterables that are not generators', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, (_context, next) => ({
        [Symbol.asyncIterator]: () => next()[Symbol.asyncIterator](),
      }));
      const events = await collect(
        registry.invoke(Stage, { prompt: 'x' }, () => ({
          async *[Symbol.asyncIterator]() {
            yield 'one';
            yield 'two';
          },
        })),
      );
      expect(events).toEqual(['one', 'two']);
    });
  });

  describe('errors of handlers and the terminal', () => {
    it.each([
      ['the terminal', (registry: MiddlewareRegistry, error: unknown) => ({ registry, terminal: failingTerminal(error) })],
      ['an Input handler', (registry: MiddlewareRegistry, error: unknown) => {
        registry.add(Stage.Input, () => {
          throw error;
        });
        return { registry, terminal: echo };
      }],
      ['an Output handler', (registry: MiddlewareRegistry, error: unknown) => {
        registry.add(Stage.Output, async () => {
          throw error;
        });
        return { registry, terminal: echo };
      }],
      ['a Wrap handler', (registry: MiddlewareRegistry, error: unknown) => {
        registry.add(Stage.Wrap, async function* broken() {
          yield 'partial';
          throw error;
        });
        return { registry, terminal: echo };
      }],
      ['a Wrap handler before it yields', (registry: MiddlewareRegistry, error: unknown) => {
        registry.add(Stage.Wrap, () => {
          throw error;
        });
        return { registry, terminal: echo };
      }],
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
      registry.add(Stage.Wrap, async function* leaky(_context, next) {
        try {
          yield* next();
        } finally {
          // eslint-disable-next-line no-unsafe-finally
          throw replacement;
        }
      });
      expect(await failure(registry.run(Stage, { prompt: 'x' }, failingTerminal(new Error('original'))))).toBe(replacement);
    });

    it('let an error thrown while closing the open layers replace a contract error', async () => {
      const registry = new MiddlewareRegistry();
      const replacement = new Error('cleanup failed');
      registry.add(Stage.Wrap, async function* leaky(_context, next) {
        try {
          yield* next();
        } finally {
          // eslint-disable-next-line no-unsafe-finally
          throw replacement;
        }
      });
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
          // eslint-disable-next-line no-unsafe-finally
          throw replacement;
        }
      });
      expect(await failure(result)).toBe(replacement);
    });
  });

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
          // eslint-disable-next-line no-unsafe-finally
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
          // eslint-disable-next-line no-unsafe-finally
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

  describe('contract errors', () => {
    it.each([
      ['a plain async function', async () => 'value', 'returned a promise, not an async iterable. It looks like a plain async function: write it as `async function*`'],
      ['an array', () => ['a'], 'returned an array of length 1, not an async iterable. A synchronous iterable (an array or a `function*` generator) cannot stream'],
      ['a sync generator', function* sync() {
        yield 'a';
      }, 'returned a plain object, not an async iterable. A synchronous iterable (an array or a `function*` generator) cannot stream: write it as `async function*`.'],
      ['undefined', () => undefined, 'returned undefined, not an async iterable. Write it as `async function*` and forward the inner events with `yield* next()`.'],
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

    it('rejects a terminal returning a non-iterable with ERR_INVALID_HANDLER', async () => {
      const error = await failure(new MiddlewareRegistry().run(Stage, { prompt: 'x' }, (async () => 'text') as never));
      expect(fields(error)).toEqual({ code: 'ERR_INVALID_HANDLER', stage: 'model', phase: 'terminal', handler: 'terminal' });
      expect((error as Error).message).toContain('The terminal of stage "model" returned a promise, not an async iterable.');
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

    it('accepts a MiddlewareResult from a second installed copy', async () => {
      const registry = new MiddlewareRegistry();
      const foreign = { [Symbol.for('staged-middleware.result')]: true, value: 'foreign' };
      registry.add(Stage.Output, () => foreign as unknown as MiddlewareResult<string>);
      await expect(registry.run(Stage, { prompt: 'x' }, echo)).resolves.toBe('foreign');
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

function endless(trace: string[]): Terminal<Context, string> {
  return async function* terminal() {
    try {
      for (let index = 0; ; index++) yield String(index);
    } finally {
      trace.push('terminal:finally');
    }
  };
}

