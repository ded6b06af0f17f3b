import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, type Terminal } from '../../src/core/index';
import { failure } from '../assertions';
import { counting, initial, store, Stage, type Context, type ModelState } from './state-store';

describe('MiddlewareRegistry.invoke', () => {
  describe('state when nothing may be written', () => {
    it('fails with ERR_INVALID_HANDLER naming the terminal, writing nothing, when the terminal returns no stream', async () => {
      const { binding, writes } = store(initial());
      const error = await failure(
        new MiddlewareRegistry().run(Stage, { prompt: 'x' }, (() => null) as unknown as Terminal<Context, string, ModelState>, {
          state: binding,
        }),
      );
      const { code, stage, phase, handler } = error as MiddlewareError;
      expect({ code, stage, phase, handler, writes }).toEqual({
        code: 'ERR_INVALID_HANDLER',
        stage: 'model',
        phase: 'terminal',
        handler: 'terminal',
        writes: [],
      });
    });

    it('writes nothing when the invoke fails', async () => {
      const { binding, writes } = store(initial());
      const problem = new Error('after the terminal');
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, async function* failsLate(_context, next) {
        yield* next();
        throw problem;
      });
      expect(await failure(registry.run(Stage, { prompt: 'x' }, counting([]), { state: binding }))).toBe(problem);
      expect(writes).toEqual([]);
    });

    it('writes nothing when an Output handler fails', async () => {
      const { binding, writes } = store(initial());
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Output, () => {
        throw new Error('output failed');
      });
      await failure(registry.run(Stage, { prompt: 'x' }, counting([]), { state: binding }));
      expect(writes).toEqual([]);
    });

    it('writes nothing when the invoke is aborted', async () => {
      const { binding, writes } = store(initial());
      const controller = new AbortController();
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Output, (result) => (controller.abort('stop'), result));
      const error = await failure(registry.run(Stage, { prompt: 'x' }, counting([]), { state: binding, signal: controller.signal }));
      expect((error as MiddlewareError).code).toBe('ERR_ABORTED');
      expect(writes).toEqual([]);
    });

    it('writes nothing when the consumer closes the invoke', async () => {
      const { binding, writes } = store(initial());
      const events = new MiddlewareRegistry().invoke(
        Stage,
        { prompt: 'x' },
        async function* terminal(context, run) {
          (run.state as ModelState).count = 5;
          yield 'partial';
          yield context.prompt;
        },
        { state: binding },
      );
      await events.next();
      await events.return();
      expect(writes).toEqual([]);
    });

    it.each([
      [
        'a Wrap handler short-circuits',
        async function* cached() {
          yield 'cached';
        },
      ],
      [
        'the only terminal call is abandoned',
        async function* abandons(_context: Context, next: () => AsyncGenerator<string>) {
          await next().next();
          yield 'own';
        },
      ],
    ])('writes nothing when no terminal call completed because %s', async (_label, handler) => {
      const { binding, writes } = store(initial());
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, handler as never);
      await registry.run(
        Stage,
        { prompt: 'x' },
        async function* terminal(context, run) {
          (run.state as ModelState).count = 5;
          yield 'partial';
          yield context.prompt;
        },
        { state: binding },
      );
      expect(writes).toEqual([]);
    });
  });
});
