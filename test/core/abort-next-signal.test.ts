import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { OwnedAbortController } from '../../src/core/fast-path';
import { failure } from '../assertions';
import { ModelStage as Stage } from '../fixtures';
import { expectAborted } from './abort-fixtures';

describe('MiddlewareRegistry.invoke', () => {
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

  describe('next() after the invoke signal aborted', () => {
    it.each([
      ['a signal of its caller', (): { signal: AbortSignal; abort(reason: unknown): void } => new AbortController()],
      ['a signal the library made', (): { signal: AbortSignal; abort(reason: unknown): void } => new OwnedAbortController()],
    ])('throws ERR_ABORTED with its reason at once under %s, entering nothing', async (_label, makeController) => {
      const controller = makeController();
      const registry = new MiddlewareRegistry();
      let thrown: unknown;
      let terminalCalls = 0;
      registry.add(Stage.Wrap, async function* retry(_context, next) {
        controller.abort('stop');
        try {
          next();
        } catch (error) {
          thrown = error;
        }
        yield 'own';
      });
      const outcome = await registry
        .run(
          Stage,
          { prompt: 'x' },
          async function* terminal() {
            terminalCalls++;
            yield 'x';
          },
          { signal: controller.signal },
        )
        .catch((error: unknown) => error);
      expectAborted(thrown, 'stop');
      expectAborted(outcome, 'stop');
      expect(terminalCalls).toBe(0);
    });
  });
});
