import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, type HandlerInfo, type Instrumentation, type InvokeObserver } from '../../src/core/index';
import { failure, fields } from '../assertions';
import { ModelStage as Stage, echo as terminal, passThrough } from '../fixtures';

function layerReturning(produced: unknown, name = 'shaper'): Instrumentation {
  return { name, invoke: () => ({ layer: () => produced }) as unknown as InvokeObserver };
}

describe('MiddlewareRegistry.instrument', () => {
  describe('an invoke() that returns something else than an observer', () => {
    it.each([
      ['null', null, 'null'],
      ['a number', 5, 'number 5'],
    ])('fails the invoke with ERR_INVALID_HANDLER naming the instrumentation, for %s', async (_label, produced, described) => {
      const registry = new MiddlewareRegistry();
      registry.instrument({ name: 'watcher', invoke: () => produced as unknown as InvokeObserver });
      const error = await failure(registry.run(Stage, { prompt: 'x' }, terminal));
      expect({ ...fields(error), message: (error as Error).message }).toEqual({
        code: 'ERR_INVALID_HANDLER',
        stage: 'model',
        phase: undefined,
        handler: 'watcher',
        message: `[ERR_INVALID_HANDLER] Instrumentation "watcher" returned ${described} from invoke() in an invoke of stage "model", but it must return undefined or an observer object (whose hooks, when present, are functions). Return an object with the hooks it needs, or undefined to skip the invoke.`,
      });
    });
  });

  describe('a layer() that returns something else than an async generator', () => {
    const generator = (async function* events() {
      yield 'x';
    })();
    it.each([
      ['null', null],
      [
        'a function carrying the methods of one',
        Object.assign(() => generator, {
          next: () => generator.next(),
          return: () => generator.return(),
          [Symbol.asyncIterator]: () => generator,
        }),
      ],
      ['an object without next', { return: () => generator.return(), [Symbol.asyncIterator]: () => generator }],
      ['an object without return', { next: () => generator.next(), [Symbol.asyncIterator]: () => generator }],
      ['an object without Symbol.asyncIterator', { next: () => generator.next(), return: () => generator.return() }],
    ])('fails the invoke with ERR_INVALID_HANDLER, for %s', async (_label, produced) => {
      const registry = new MiddlewareRegistry();
      registry.instrument(layerReturning(produced));
      expect(fields(await failure(registry.run(Stage, { prompt: 'x' }, terminal)))).toEqual({
        code: 'ERR_INVALID_HANDLER',
        stage: 'model',
        phase: undefined,
        handler: 'shaper',
      });
    });

    it.each([
      ['the terminal', false, 'the terminal'],
      ['a Wrap layer', true, 'Wrap handler "passThrough"'],
    ])('names %s it was wrapping in the message', async (_label, wrapped, layer) => {
      const registry = new MiddlewareRegistry();
      if (wrapped) registry.add(Stage.Wrap, passThrough);
      registry.instrument(layerReturning(7));
      const error = await failure(registry.run(Stage, { prompt: 'x' }, terminal));
      expect((error as Error).message).toBe(
        `[ERR_INVALID_HANDLER] Instrumentation "shaper" returned number 7 from layer() for ${layer} in an invoke of stage "model", but it must return an async generator (next, return and Symbol.asyncIterator). Wrap the events in an \`async function*\` that does \`yield* events\`.`,
      );
    });

    it.each([
      ['an empty name', ''],
      ['a name that is not a string', 42],
    ])('calls an instrumentation with %s "anonymous instrumentation"', async (_label, name) => {
      const registry = new MiddlewareRegistry();
      registry.instrument(layerReturning(null, name as string));
      expect(fields(await failure(registry.run(Stage, { prompt: 'x' }, terminal)))).toEqual({
        code: 'ERR_INVALID_HANDLER',
        stage: 'model',
        phase: undefined,
        handler: 'anonymous instrumentation',
      });
    });
  });

  describe('an asynchronous Input or Output handler that fails', () => {
    it.each(['input', 'output'] as const)('reports the %s handler as ended with its error', async (phase) => {
      const registry = new MiddlewareRegistry();
      const problem = new Error('late failure');
      const ends: unknown[] = [];
      registry.instrument({
        name: 'watcher',
        invoke: () => ({ handlerEnd: (info: HandlerInfo, ...error: unknown[]) => ends.push([info.phase, info.handler, ...error]) }),
      });
      if (phase === 'input')
        registry.add(Stage.Input, async function slowInput() {
          await Promise.resolve();
          throw problem;
        });
      else
        registry.add(Stage.Output, async function slowOutput() {
          await Promise.resolve();
          throw problem;
        });
      expect(await failure(registry.run(Stage, { prompt: 'x' }, terminal))).toBe(problem);
      expect(ends).toEqual([[phase, phase === 'input' ? 'slowInput' : 'slowOutput', problem]]);
    });
  });
});
