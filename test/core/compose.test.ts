import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { collect, deferred } from '../assertions';
import { ModelStage as Stage, echo, tracing } from '../fixtures';

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
});
