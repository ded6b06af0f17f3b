import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { createStage, MiddlewareError, MiddlewareRegistry, type WrapHandler } from '../../src/index';
import { failure } from '../assertions';
import { ModelStage as Stage, echo, type PromptContext as Context } from '../fixtures';

function expectAborted(error: unknown, reason: unknown): void {
  expect(MiddlewareError.isInstance(error)).toBe(true);
  const { code, stage } = error as MiddlewareError;
  expect({ code, stage }).toEqual({ code: 'ERR_ABORTED', stage: 'model' });
  expect((error as Error).cause).toBe(reason);
}

function tracing(trace: string[], name: string): WrapHandler<Context, string> {
  return async function* traced(_context, next) {
    try {
      yield* next();
    } finally {
      trace.push(`${name}:finally`);
    }
  };
}

describe('MiddlewareRegistry.invoke', () => {
  describe('signal aborted before start', () => {
    it('runs nothing and fails with ERR_ABORTED carrying the reason', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Input, (context) => (trace.push('input'), context));
      const reason = new Error('user left');
      const error = await failure(
        registry.run(
          Stage,
          { prompt: 'x' },
          async function* terminal() {
            trace.push('terminal');
            yield 'x';
          },
          { signal: AbortSignal.abort(reason) },
        ),
      );
      expectAborted(error, reason);
      expect((error as Error).message).toBe(
        '[ERR_ABORTED] The invoke of stage "model" was aborted: user left. The abort reason is the cause.',
      );
      expect(trace).toEqual([]);
    });

    it.each([
      ['a string reason', 'stop', ': stop'],
      ['a number reason', 7, ''],
    ])('describes %s in the message', async (_label, reason, text) => {
      const error = await failure(new MiddlewareRegistry().run(Stage, { prompt: 'x' }, echo, { signal: AbortSignal.abort(reason) }));
      expectAborted(error, reason);
      expect((error as Error).message).toBe(`[ERR_ABORTED] The invoke of stage "model" was aborted${text}. The abort reason is the cause.`);
    });
  });

  describe('signal aborted with a reason that is hard to describe', () => {
    function throwingMessage(): Error {
      const reason = new Error('hidden');
      Object.defineProperty(reason, 'message', {
        get() {
          throw new Error('the message getter throws');
        },
      });
      return reason;
    }
    function revokedProxy(): object {
      const { proxy, revoke } = Proxy.revocable(new Error('gone'), {});
      revoke();
      return proxy;
    }

    it.each([
      ['an Error whose message getter throws', throwingMessage],
      ['a revoked proxy', revokedProxy],
      ['an object without a prototype', () => Object.create(null) as object],
      ['an Error whose message is not a string', () => Object.assign(new Error(), { message: 42 })],
    ])('still fails with ERR_ABORTED carrying %s as the cause', async (_label, make) => {
      const reason = make();
      const error = await failure(new MiddlewareRegistry().run(Stage, { prompt: 'x' }, echo, { signal: AbortSignal.abort(reason) }));
      expectAborted(error, reason);
      expect((error as Error).message).toBe('[ERR_ABORTED] The invoke of stage "model" was aborted. The abort reason is the cause.');
    });
  });

  describe('signal aborted during the Input phase', () => {
    it('stops after the handler that aborted', async () => {
      const controller = new AbortController();
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Input, (context) => (trace.push('first'), controller.abort('enough'), context));
      registry.add(Stage.Input, (context) => (trace.push('second'), context));
      const error = await failure(registry.run(Stage, { prompt: 'x' }, echo, { signal: controller.signal }));
      expectAborted(error, 'enough');
      expect(trace).toEqual(['first']);
    });
  });

  describe('signal aborted mid-stream', () => {
    it('fails at the next event and closes every layer innermost first', async () => {
      const controller = new AbortController();
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Wrap, tracing(trace, 'outer'));
      registry.add(Stage.Wrap, tracing(trace, 'inner'));
      const events = registry.invoke(
        Stage,
        { prompt: 'x' },
        async function* terminal() {
          try {
            yield 'one';
            yield 'two';
            yield 'three';
          } finally {
            trace.push('terminal:finally');
          }
        },
        { signal: controller.signal },
      );
      await expect(events.next()).resolves.toEqual({ value: 'one', done: false });
      controller.abort('user left');
      expectAborted(await failure(events.next()), 'user left');
      expect(trace).toEqual(['terminal:finally', 'inner:finally', 'outer:finally']);
      await expect(events.next()).resolves.toEqual({ value: undefined, done: true });
    });

    it('fails with ERR_ABORTED even when a handler swallows the abort and recovers', async () => {
      const controller = new AbortController();
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* swallow(_context, next) {
        try {
          yield* next();
        } catch {
          yield 'fallback';
        }
      });
      const reason = new Error('cancelled');
      const error = await failure(
        registry.run(
          Stage,
          { prompt: 'x' },
          async function* terminal(_context, run) {
            controller.abort(reason);
            run.signal.throwIfAborted();
            yield 'never';
          },
          { signal: controller.signal },
        ),
      );
      expectAborted(error, reason);
    });

    it('fails with ERR_ABORTED whatever error a layer throws once aborted', async () => {
      const controller = new AbortController();
      const error = await failure(
        new MiddlewareRegistry().run(
          Stage,
          { prompt: 'x' },
          async function* terminal() {
            controller.abort('stop');
            throw new Error('socket closed');
          },
          { signal: controller.signal },
        ),
      );
      expectAborted(error, 'stop');
    });

    it('keeps an ERR_ABORTED a layer raised itself', async () => {
      const controller = new AbortController();
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* late(_context, next) {
        controller.abort('stop');
        yield* next();
      });
      registry.add(Stage.Wrap, async function* inner(_context, next) {
        yield* next();
      });
      const error = await failure(registry.run(Stage, { prompt: 'x' }, echo, { signal: controller.signal }));
      expectAborted(error, 'stop');
    });
  });

  describe('signal aborted and the abort rethrown as another error', () => {
    it('still gives the consumer ERR_ABORTED when a handler wraps the abort in an error whose cause is the reason', async () => {
      const controller = new AbortController();
      const registry = new MiddlewareRegistry();
      let wrapped: unknown;
      registry.add(Stage.Wrap, async function* rewrapping(_context, next) {
        try {
          yield* next();
        } catch (error) {
          wrapped = new Error('request cancelled', { cause: error });
          throw wrapped;
        }
      });
      const error = await failure(
        registry.run(
          Stage,
          { prompt: 'x' },
          async function* terminal(_context, run) {
            controller.abort('user left');
            throw run.signal.reason;
          },
          { signal: controller.signal },
        ),
      );
      expect((wrapped as Error).cause).toBe('user left');
      expectAborted(error, 'user left');
    });

    it.each([
      [
        'a plain error carrying the code ERR_ABORTED and the reason as cause',
        (reason: unknown) => Object.assign(new Error('aborted'), { code: 'ERR_ABORTED', cause: reason }),
      ],
      [
        'a MiddlewareError of another code with the reason as cause',
        (reason: unknown) => new MiddlewareError({ code: 'ERR_INVALID_EVENT', message: 'rewrapped', cause: reason }),
      ],
    ])('gives the consumer a genuine ERR_ABORTED when a handler rethrows the abort as %s', async (_label, rewrap) => {
      const controller = new AbortController();
      const registry = new MiddlewareRegistry();
      let rethrown: unknown;
      registry.add(Stage.Wrap, async function* rewrapping(_context, next, run) {
        try {
          yield* next();
        } catch {
          rethrown = rewrap(run.signal.reason);
          throw rethrown;
        }
      });
      const error = await failure(
        registry.run(
          Stage,
          { prompt: 'x' },
          async function* terminal(_context, run) {
            controller.abort('user left');
            throw run.signal.reason;
          },
          { signal: controller.signal },
        ),
      );
      expect(error === rethrown).toBe(false);
      expectAborted(error, 'user left');
    });
  });

  describe('signal aborted during the Output phase', () => {
    it('stops after the Output handler that aborted', async () => {
      const controller = new AbortController();
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Output, (result) => (trace.push('outer output'), result));
      registry.add(Stage.Output, (result) => (trace.push('inner output'), controller.abort('late'), result));
      const error = await failure(registry.run(Stage, { prompt: 'x' }, echo, { signal: controller.signal }));
      expectAborted(error, 'late');
      expect(trace).toEqual(['inner output']);
    });

    it('is checked after the result schema', async () => {
      const controller = new AbortController();
      const Checked = createStage<Context, string>('model', {
        result: { safeParse: (value) => (controller.abort('during parse'), { success: true, data: value as string }) },
      });
      const error = await failure(new MiddlewareRegistry().run(Checked, { prompt: 'x' }, echo, { signal: controller.signal }));
      expectAborted(error, 'during parse');
    });
  });

  describe('next() with options of the wrong shape', () => {
    it.each([
      ['a signal that is a string', { signal: 'junk' }, 'options.signal set to the string "junk", not an AbortSignal'],
      ['a signal that is a plain object', { signal: { aborted: false } }, 'options.signal set to a plain object, not an AbortSignal'],
      ['options that are a number', 5, 'options that are number 5, not an object'],
      ['options that are null', null, 'options that are null, not an object'],
    ])('throws ERR_INVALID_OPTIONS naming the handler for %s, entering nothing', async (_label, options, problem) => {
      const registry = new MiddlewareRegistry();
      let thrown: unknown;
      let terminalCalls = 0;
      registry.add(Stage.Wrap, async function* narrow(_context, next) {
        try {
          next(undefined, options as never);
        } catch (error) {
          thrown = error;
        }
        yield 'own';
      });
      await registry.run(
        Stage,
        { prompt: 'x' },
        async function* terminal() {
          terminalCalls++;
          yield 'x';
        },
        { signal: new AbortController().signal },
      );
      const { code, stage, phase, handler } = thrown as MiddlewareError;
      expect({ code, stage, phase, handler, terminalCalls }).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: 'model',
        phase: 'wrap',
        handler: 'narrow',
        terminalCalls: 0,
      });
      expect((thrown as Error).message).toBe(
        `[ERR_INVALID_OPTIONS] Wrap handler "narrow" of stage "model" called next() with ${problem}. Pass next(context, { signal }) with an AbortSignal, or leave the options out.`,
      );
    });
  });

  describe('next() with a signal', () => {
    it('treats options whose signal is undefined as no signal: the inner chain runs under the invoke signal', async () => {
      const controller = new AbortController();
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* unnarrowed(_context, next) {
        yield* next(undefined, { signal: undefined } as never);
      });
      const seen: boolean[] = [];
      const result = await registry.run(
        Stage,
        { prompt: 'x' },
        async function* terminal(_context, run) {
          seen.push(run.signal === controller.signal);
          yield 'done';
        },
        { signal: controller.signal },
      );
      expect({ result, seen }).toEqual({ result: 'done', seen: [true] });
    });

    it('gives inner layers a signal that aborts with the given one, without aborting the invoke', async () => {
      const invokeController = new AbortController();
      const attemptController = new AbortController();
      const registry = new MiddlewareRegistry();
      const seen: unknown[] = [];
      registry.add(Stage.Wrap, async function* timeout(_context, next, run) {
        seen.push(run.signal === invokeController.signal);
        try {
          yield* next(undefined, { signal: attemptController.signal });
        } catch (error) {
          yield `recovered from ${String(error)}`;
        }
      });
      const result = await registry.run(
        Stage,
        { prompt: 'x' },
        async function* terminal(_context, run) {
          seen.push(run.signal === invokeController.signal, run.signal === attemptController.signal, run.signal.aborted);
          attemptController.abort('attempt timed out');
          seen.push(run.signal.aborted, run.signal.reason);
          run.signal.throwIfAborted();
          yield 'never';
        },
        { signal: invokeController.signal },
      );
      expect(result).toBe('recovered from attempt timed out');
      expect(seen).toEqual([true, false, false, false, true, 'attempt timed out']);
    });

    it('gives inner layers a signal that aborts with the invoke signal', async () => {
      const invokeController = new AbortController();
      const registry = new MiddlewareRegistry();
      let inner: AbortSignal | undefined;
      registry.add(Stage.Wrap, async function* narrow(_context, next) {
        yield* next(undefined, { signal: new AbortController().signal });
      });
      const error = await failure(
        registry.run(
          Stage,
          { prompt: 'x' },
          async function* terminal(_context, run) {
            inner = run.signal;
            invokeController.abort('outer stop');
            yield 'x';
          },
          { signal: invokeController.signal },
        ),
      );
      expectAborted(error, 'outer stop');
      expect([inner?.aborted, inner?.reason]).toEqual([true, 'outer stop']);
    });

    it('passes the given signal itself when the invoke has none', async () => {
      const given = new AbortController().signal;
      const registry = new MiddlewareRegistry();
      let inner: AbortSignal | undefined;
      registry.add(Stage.Wrap, async function* narrow(_context, next) {
        yield* next(undefined, { signal: given });
      });
      await registry.run(Stage, { prompt: 'x' }, async function* terminal(context, run) {
        inner = run.signal;
        yield context.prompt;
      });
      expect(inner).toBe(given);
    });

    it('throws ERR_ABORTED at once when the given signal is already aborted', async () => {
      const registry = new MiddlewareRegistry();
      let thrown: unknown;
      let terminalCalls = 0;
      registry.add(Stage.Wrap, async function* narrow(_context, next) {
        try {
          next(undefined, { signal: AbortSignal.abort('too late') });
        } catch (error) {
          thrown = error;
        }
        yield 'own';
      });
      await registry.run(
        Stage,
        { prompt: 'x' },
        async function* terminal() {
          terminalCalls++;
          yield 'x';
        },
        { signal: new AbortController().signal },
      );
      expectAborted(thrown, 'too late');
      expect(terminalCalls).toBe(0);
    });
  });

  describe('next() with a signal: what it registers on the signals', () => {
    it('unties the signal of an inner chain past the first 32 as soon as that chain ends, the others when the invoke settles', async () => {
      const locals = Array.from({ length: 40 }, () => new AbortController());
      const registry = new MiddlewareRegistry();
      let during: number[] = [];
      registry.add(Stage.Wrap, async function* deadlines(_context, next) {
        for (const local of locals) for await (const _event of next(undefined, { signal: local.signal }));
        during = locals.map((local) => getEventListeners(local.signal, 'abort').length);
        yield 'own';
      });
      await registry.run(Stage, { prompt: 'x' }, echo, { signal: new AbortController().signal });
      const after = locals.map((local) => getEventListeners(local.signal, 'abort').length);
      expect({ during, after }).toEqual({
        during: [...Array<number>(32).fill(1), ...Array<number>(8).fill(0)],
        after: Array<number>(40).fill(0),
      });
    });

    it.each([
      ['the given signal', 'given'],
      ["the invoke's signal", 'outer'],
    ])("aborts the inner chain when %s aborts, with that signal's reason", async (_label, which) => {
      const invokeController = new AbortController();
      const given = new AbortController();
      const inner: AbortSignal[] = [];
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* narrow(_context, next) {
        yield* next(undefined, { signal: given.signal });
        yield* next(undefined, { signal: given.signal });
      });
      const events = registry.invoke(
        Stage,
        { prompt: 'x' },
        async function* terminal(_context, run) {
          inner.push(run.signal);
          yield 'x';
        },
        { signal: invokeController.signal },
      );
      await events.next();
      if (which === 'given') given.abort('given reason');
      else invokeController.abort('outer reason');
      expect([inner[0]?.aborted, inner[0]?.reason]).toEqual([true, `${which} reason`]);
      await events.return();
    });

    it.each([
      ["the invoke's signal", 'outer'],
      ['the signal given to next()', 'given'],
    ])('throws ERR_ABORTED from next() when %s is already aborted, adding no listener', async (_label, which) => {
      const invokeController = new AbortController();
      const given = new AbortController();
      const adds = [vi.spyOn(invokeController.signal, 'addEventListener'), vi.spyOn(given.signal, 'addEventListener')];
      if (which === 'given') given.abort('given reason');
      let thrown: unknown;
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* narrow(_context, next) {
        if (which === 'outer') invokeController.abort('outer reason');
        try {
          yield* next(undefined, { signal: given.signal });
        } catch (error) {
          thrown = error;
          throw error;
        }
      });
      const delivered = await failure(registry.run(Stage, { prompt: 'x' }, echo, { signal: invokeController.signal }));
      expectAborted(thrown, which === 'outer' ? 'outer reason' : 'given reason');
      expect(delivered).toBe(thrown);
      expect(adds.map((add) => add.mock.calls.length)).toEqual([0, 0]);
    });

    it.each([
      ['fails', 'error'],
      ['is closed by the consumer', 'close'],
    ])('removes its listeners when the invoke %s', async (_label, ending) => {
      const invokeSignal = new AbortController().signal;
      const given = new AbortController().signal;
      const add = vi.spyOn(given, 'addEventListener');
      const remove = vi.spyOn(given, 'removeEventListener');
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* narrow(_context, next) {
        yield* next(undefined, { signal: given });
      });
      const events = registry.invoke(
        Stage,
        { prompt: 'x' },
        async function* terminal() {
          yield 'one';
          if (ending === 'error') throw new Error('failed');
          yield 'two';
        },
        { signal: invokeSignal },
      );
      await events.next();
      if (ending === 'error') await expect(events.next()).rejects.toThrow('failed');
      else await events.return();
      expect(add).toHaveBeenCalledTimes(1);
      expect(remove.mock.calls.map((call) => call[1])).toEqual(add.mock.calls.map((call) => call[1]));
    });

    it('removes its listeners from both signals when the invoke settles', async () => {
      const invokeSignal = new AbortController().signal;
      const given = new AbortController().signal;
      const spies = [invokeSignal, given].map((signal) => ({
        add: vi.spyOn(signal, 'addEventListener'),
        remove: vi.spyOn(signal, 'removeEventListener'),
      }));
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* narrow(_context, next) {
        yield* next(undefined, { signal: given });
        yield* next(undefined, { signal: given });
      });
      await registry.run(Stage, { prompt: 'x' }, echo, { signal: invokeSignal });
      // One listener per signal, shared by both narrowed signals, removed once.
      for (const { add, remove } of spies) {
        expect(add).toHaveBeenCalledTimes(1);
        expect(remove.mock.calls.map((call) => call[1])).toEqual(add.mock.calls.map((call) => call[1]));
      }
    });
  });
});
