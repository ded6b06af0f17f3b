import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareRegistry, type WrapHandler } from '../../src/core/index';
import { failure } from '../assertions';
import { ModelStage as Stage, echo, type PromptContext as Context } from '../fixtures';
import { OwnedAbortController } from '../../src/core/fast-path/owned-abort-controller';
import { expectAborted } from './abort-fixtures';

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

  // The library's own signals (an agent run's, a narrowed one) are read through a flag instead of `aborted`
  // (src/core/fast-path/owned-abort-controller.ts): each check point must hold for them exactly as for a caller's AbortController.
  describe.each([
    ['an AbortController', () => new AbortController()],
    ["a controller of the library's own", () => new OwnedAbortController()],
  ])('with the signal of %s', (_label, makeController: () => { readonly signal: AbortSignal; abort(reason?: unknown): void }) => {
    describe('signal aborted during the Input phase', () => {
      it('stops after the handler that aborted', async () => {
        const controller = makeController();
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
        const controller = makeController();
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
        const controller = makeController();
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
        const controller = makeController();
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
        const controller = makeController();
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

    describe('signal aborted by the result guard while a candidate is held', () => {
      it('pulls no more of the chain and fails with ERR_ABORTED', async () => {
        const controller = makeController();
        const Guarded = createStage<Context, string>('model', {
          isResult: (_event): _event is string => (controller.abort('guarded'), true),
        });
        const registry = new MiddlewareRegistry();
        // An Output handler makes the invoke hold each result candidate until the next event shows whether it is the last.
        registry.add(Guarded.Output, (result) => result);
        const trace: string[] = [];
        const error = await failure(
          registry.run(
            Guarded,
            { prompt: 'x' },
            async function* terminal() {
              try {
                yield 'candidate';
                trace.push('pulled again');
                yield 'another';
              } finally {
                trace.push('closed');
              }
            },
            { signal: controller.signal },
          ),
        );
        expectAborted(error, 'guarded');
        expect(trace).toEqual(['closed']);
      });
    });

    describe('signal aborted during the Output phase', () => {
      it('stops after the Output handler that aborted', async () => {
        const controller = makeController();
        const registry = new MiddlewareRegistry();
        const trace: string[] = [];
        registry.add(Stage.Output, (result) => (trace.push('outer output'), result));
        registry.add(Stage.Output, (result) => (trace.push('inner output'), controller.abort('late'), result));
        const error = await failure(registry.run(Stage, { prompt: 'x' }, echo, { signal: controller.signal }));
        expectAborted(error, 'late');
        expect(trace).toEqual(['inner output']);
      });

      it('is checked after the result schema', async () => {
        const controller = makeController();
        const Checked = createStage<Context, string>('model', {
          result: { safeParse: (value) => (controller.abort('during parse'), { success: true, data: value as string }) },
        });
        const error = await failure(new MiddlewareRegistry().run(Checked, { prompt: 'x' }, echo, { signal: controller.signal }));
        expectAborted(error, 'during parse');
      });
    });
  });
});
