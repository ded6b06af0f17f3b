import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { failure } from '../assertions';
import { ModelStage as Stage, echo as terminal } from '../fixtures';
import { recorder } from './observation-recorder';

describe('MiddlewareRegistry.instrument', () => {
  describe('layer', () => {
    it('wraps each Wrap layer and terminal entry, counting attempts per position', async () => {
      const registry = new MiddlewareRegistry();
      const { instrumentation, recording } = recorder();
      registry.instrument(instrumentation);
      registry.add(
        Stage.Wrap,
        async function* retry(_context, next) {
          for await (const _event of next()) break;
          yield* next({ prompt: 'second' });
        },
        { id: 'retry', order: -1 },
      );
      registry.add(Stage.Wrap, async function* inner(_context, next) {
        yield* next();
      });
      await expect(registry.run(Stage, { prompt: 'first' }, terminal)).resolves.toBe('second');
      expect(recording.layers).toEqual([
        {
          kind: 'wrap',
          handler: 'retry',
          id: 'retry',
          order: -1,
          position: 0,
          attempt: 1,
          context: { prompt: 'first' },
          parent: undefined,
        },
        {
          kind: 'wrap',
          handler: 'inner',
          id: undefined,
          order: 0,
          position: 1,
          attempt: 1,
          context: { prompt: 'first' },
          parent: 'retry#1',
        },
        {
          kind: 'terminal',
          handler: 'terminal',
          id: undefined,
          order: 0,
          position: 2,
          attempt: 1,
          context: { prompt: 'first' },
          parent: 'inner#1',
        },
        {
          kind: 'wrap',
          handler: 'inner',
          id: undefined,
          order: 0,
          position: 1,
          attempt: 2,
          context: { prompt: 'second' },
          parent: 'retry#1',
        },
        {
          kind: 'terminal',
          handler: 'terminal',
          id: undefined,
          order: 0,
          position: 2,
          attempt: 2,
          context: { prompt: 'second' },
          parent: 'inner#2',
        },
      ]);
      expect(recording.log).toEqual([
        'rec:enter retry#1',
        'rec:enter inner#1',
        'rec:enter terminal#1',
        'rec:leave terminal#1',
        'rec:leave inner#1',
        'rec:enter inner#2',
        'rec:enter terminal#2',
        'rec:leave terminal#2',
        'rec:leave inner#2',
        'rec:leave retry#1',
      ]);
    });

    it('names as parent the entry that called next(), even when a handler runs two inner chains at once', async () => {
      const registry = new MiddlewareRegistry();
      const { instrumentation, recording } = recorder();
      registry.instrument(instrumentation);
      registry.add(Stage.Wrap, async function* hedge(_context, next) {
        const first = next({ prompt: 'one' });
        const second = next({ prompt: 'two' });
        // The second chain is pulled first, so its inner handler enters the terminal first.
        const fromSecond = await second.next();
        await first.next();
        await first.return();
        await second.return();
        if (fromSecond.done !== true) yield fromSecond.value;
      });
      registry.add(Stage.Wrap, async function* inner(_context, next) {
        yield* next();
      });
      await expect(registry.run(Stage, { prompt: 'x' }, terminal)).resolves.toBe('two');
      expect(
        recording.layers.map(
          (layer) => `${layer.handler}#${layer.attempt} <- ${layer.parent ?? 'none'} (${(layer.context as { prompt: string }).prompt})`,
        ),
      ).toEqual([
        'hedge#1 <- none (x)',
        'inner#1 <- hedge#1 (one)',
        'inner#2 <- hedge#1 (two)',
        'terminal#1 <- inner#2 (two)',
        'terminal#2 <- inner#1 (one)',
      ]);
    });

    it('applies observers in registration order, the first innermost', async () => {
      const registry = new MiddlewareRegistry();
      const shared: string[] = [];
      for (const label of ['a', 'b']) {
        registry.instrument({
          name: label,
          invoke: () => ({
            layer: (_info, events) =>
              (async function* observed() {
                shared.push(`${label} in`);
                yield* events;
                shared.push(`${label} out`);
              })(),
          }),
        });
      }
      await registry.run(Stage, { prompt: 'x' }, terminal);
      expect(shared).toEqual(['b in', 'a in', 'a out', 'b out']);
    });
  });

  describe('layer returning something that is not an async generator', () => {
    it.each([
      ['a number', 42, 'number 42'],
      ['a promise', Promise.resolve(), 'a promise'],
      ['an object with next only', { next: () => Promise.resolve({ done: true, value: undefined }) }, 'a plain object'],
    ])('fails where the layer is entered with ERR_INVALID_HANDLER naming the instrumentation (%s)', async (_label, produced, described) => {
      const registry = new MiddlewareRegistry();
      registry.instrument({ name: 'broken layers', invoke: () => ({ layer: () => produced as never }) });
      let terminalCalls = 0;
      const error = await failure(
        registry.run(Stage, { prompt: 'x' }, async function* counted() {
          terminalCalls++;
          yield 'x';
        }),
      );
      const { code, stage, phase, handler } = error as MiddlewareError;
      expect({ code, stage, phase, handler, terminalCalls }).toEqual({
        code: 'ERR_INVALID_HANDLER',
        stage: 'model',
        phase: undefined,
        handler: 'broken layers',
        terminalCalls: 0,
      });
      expect((error as Error).message).toBe(
        `[ERR_INVALID_HANDLER] Instrumentation "broken layers" returned ${described} from layer() for the terminal in an invoke of stage "model", but it must return an async generator (next, return and Symbol.asyncIterator). Wrap the events in an \`async function*\` that does \`yield* events\`.`,
      );
    });

    it('can be caught by the Wrap handler whose next() entered the layer', async () => {
      const registry = new MiddlewareRegistry();
      registry.instrument({
        name: 'terminal only',
        invoke: () => ({ layer: (info, events) => (info.kind === 'terminal' ? (7 as never) : events) }),
      });
      registry.add(Stage.Wrap, async function* fallback(_context, next) {
        try {
          yield* next();
        } catch (error) {
          yield `caught ${(error as MiddlewareError).code}`;
        }
      });
      expect(await registry.run(Stage, { prompt: 'x' }, terminal)).toBe('caught ERR_INVALID_HANDLER');
    });
  });
});
