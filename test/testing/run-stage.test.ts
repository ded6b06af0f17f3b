import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareResult, createStage, type Middleware, type WrapHandler } from '../../src/core/index';
import { runStage, scriptedTerminal, throws, updatesState } from '../../src/testing/index';

interface Context {
  readonly prompt: string;
}
const Stage = createStage<Context, string>('kit');
const context: Context = { prompt: 'p' };

const passThrough: WrapHandler<Context, string> = async function* passThrough(value, next) {
  yield* next(value);
};

describe('runStage', () => {
  describe('a successful invoke', () => {
    it('returns the events, the result and no error', async () => {
      const run = await runStage(Stage, { context, terminal: scriptedTerminal([['a', 'b']]) });
      expect(run).toEqual({ events: ['a', 'b'], result: 'b', error: undefined, calls: {}, state: undefined, stateWrites: 0 });
    });

    it('records per handler its calls, what it received and passed to next, and that its finally ran', async () => {
      const twice: WrapHandler<Context, string> = async function* twice(value, next) {
        try {
          for await (const _ of next({ prompt: 'first' }));
          yield* next();
        } finally {
          // Observed by the kit, not here.
        }
      };
      const run = await runStage(Stage, {
        context,
        terminal: scriptedTerminal([['x'], ['y']]),
        handlers: [
          [Stage.Input, (value: Context) => ({ prompt: `${value.prompt}!` }), { name: 'shout' }],
          [Stage.Wrap, twice],
          [
            Stage.Output,
            async function upper(result: MiddlewareResult<string>) {
              return result.replace(result.value.toUpperCase());
            },
          ],
        ],
      });
      expect(run.result).toBe('Y');
      expect(run.calls).toEqual({
        shout: { phase: 'input', activations: 1, received: [context], nextCalls: 0, nextContexts: [], finallyRan: true },
        twice: {
          phase: 'wrap',
          activations: 1,
          received: [{ prompt: 'p!' }],
          nextCalls: 2,
          nextContexts: [{ prompt: 'first' }, undefined],
          finallyRan: true,
        },
        upper: { phase: 'output', activations: 1, received: ['y'], nextCalls: 0, nextContexts: [], finallyRan: true },
      });
    });

    it('tells handlers with the same name apart', async () => {
      const run = await runStage(Stage, {
        context,
        terminal: scriptedTerminal([['x']]),
        handlers: [
          [Stage.Wrap, passThrough],
          [Stage.Wrap, passThrough],
        ],
      });
      expect(Object.keys(run.calls)).toEqual(['passThrough', 'passThrough#2']);
    });

    it('records handlers named "__proto__" and "constructor" under their own names (MW-139)', async () => {
      const run = await runStage(Stage, {
        context,
        terminal: scriptedTerminal([['x']]),
        handlers: [
          [Stage.Wrap, passThrough, { name: '__proto__' }],
          [Stage.Wrap, passThrough, { name: 'constructor' }],
        ],
      });
      expect([Object.keys(run.calls), Object.getPrototypeOf(run.calls) === Object.prototype]).toEqual([['__proto__', 'constructor'], true]);
    });

    it('observes the handlers of bundles too', async () => {
      const bundle: Middleware = {
        name: 'pair',
        setup: (registrar) => {
          registrar.add(Stage.Wrap, passThrough);
        },
      };
      const run = await runStage(Stage, { context, terminal: scriptedTerminal([['x']]), use: [bundle] });
      expect(run.calls.passThrough?.activations).toBe(1);
    });

    it('starts from the given state and reports the state written back', async () => {
      const run = await runStage(Stage, {
        context,
        state: { turns: 1 },
        terminal: scriptedTerminal([
          [
            updatesState<{ turns: number }>((draft) => {
              draft.turns = 2;
            }),
            'x',
          ],
        ]),
      });
      expect([run.state, run.stateWrites]).toEqual([{ turns: 2 }, 1]);
    });
  });

  describe('a failing invoke', () => {
    it('returns the error unchanged instead of throwing, with the events delivered before it', async () => {
      const failure = new Error('fails');
      const run = await runStage(Stage, { context, terminal: scriptedTerminal([['a', throws(failure)]]) });
      expect(run).toEqual({ events: ['a'], result: undefined, error: failure, calls: {}, state: undefined, stateWrites: 0 });
      expect(run.error).toBe(failure);
    });

    it('reports the state unwritten', async () => {
      const run = await runStage(Stage, {
        context,
        state: { turns: 1 },
        terminal: scriptedTerminal([
          [
            updatesState<{ turns: number }>((draft) => {
              draft.turns = 9;
            }),
            'a',
            throws(new Error('late')),
          ],
        ]),
      });
      // With a state binding the core holds the result candidate back, so 'a' is never delivered.
      expect([run.events, run.state, run.stateWrites]).toEqual([[], { turns: 1 }, 0]);
    });

    it('reports a Wrap handler whose finally did not run', async () => {
      const neverPulled: WrapHandler<Context, string> = async function* neverPulled(value, next) {
        next(value);
        yield 'own';
      };
      const run = await runStage(Stage, {
        context,
        terminal: scriptedTerminal([['x']]),
        handlers: [
          [Stage.Wrap, neverPulled],
          [Stage.Wrap, passThrough],
        ],
      });
      expect(run.result).toBe('own');
      // The inner chain was started but never pulled, so its generator body (and finally) never ran.
      expect([run.calls.neverPulled?.finallyRan, run.calls.passThrough?.activations, run.calls.passThrough?.finallyRan]).toEqual([
        true,
        1,
        false,
      ]);
    });

    it('keeps contract violations for the registry to report', async () => {
      const notAGenerator = function notAGenerator() {
        return 42;
      } as unknown as WrapHandler<Context, string>;
      const run = await runStage(Stage, { context, terminal: scriptedTerminal([['x']]), handlers: [[Stage.Wrap, notAGenerator]] });
      expect(MiddlewareError.isInstance(run.error) && [run.error.code, run.error.handler]).toEqual([
        'ERR_INVALID_HANDLER',
        'notAGenerator',
      ]);
      const thrower = await runStage(Stage, {
        context,
        terminal: scriptedTerminal([['x']]),
        handlers: [
          [
            Stage.Input,
            function bad(): never {
              throw new Error('input broke');
            },
          ],
        ],
      });
      expect([(thrower.error as Error).message, thrower.calls.bad?.finallyRan]).toEqual(['input broke', true]);
    });

    it('lets the registry reject a handler that is not a function', async () => {
      await expect(
        runStage(Stage, { context, terminal: scriptedTerminal([['x']]), handlers: [[Stage.Wrap, 'nope' as never]] }),
      ).rejects.toMatchObject({ code: 'ERR_INVALID_HANDLER' });
    });
  });

  describe('under abort', () => {
    it('passes the signal on and reports ERR_ABORTED', async () => {
      const controller = new AbortController();
      controller.abort('before start');
      const run = await runStage(Stage, { context, terminal: scriptedTerminal([['x']]), signal: controller.signal });
      expect(MiddlewareError.isInstance(run.error) && [run.error.code, run.error.cause]).toEqual(['ERR_ABORTED', 'before start']);
    });
  });

  describe('bad options', () => {
    it.each<[string, unknown, string]>([
      ['options that are not an object', null, 'options must be'],
      [
        'handlers that are not an array',
        { context, terminal: scriptedTerminal([['x']]), handlers: 5 },
        'options.handlers must be an array',
      ],
      ['bundles that are not an array', { context, terminal: scriptedTerminal([['x']]), use: {} }, 'options.use must be an array'],
      [
        'instrumentations that are not an array',
        { context, terminal: scriptedTerminal([['x']]), instrument: {} },
        'options.instrument must be an array',
      ],
    ])('rejects %s with ERR_INVALID_OPTIONS', async (_label, options, problem) => {
      await expect(runStage(Stage, options as never)).rejects.toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'runStage', message: expect.stringContaining(problem) }),
      );
    });

    it('lets the registry report an instrumentation that is not one', async () => {
      await expect(
        runStage(Stage, { context, terminal: scriptedTerminal([['x']]), instrument: [{ name: 'broken' } as never] }),
      ).rejects.toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_HANDLER', message: expect.stringContaining('registry.instrument expects') }),
      );
    });

    it('lets the registry report a bundle that is not one, naming what was passed', async () => {
      await expect(runStage(Stage, { context, terminal: scriptedTerminal([['x']]), use: [5 as never] })).rejects.toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_HANDLER', message: expect.stringContaining('got number 5') }),
      );
    });
  });
});
