import { describe, expect, it } from 'vitest';
import {
  MiddlewareError,
  MiddlewareRegistry,
  type HandlerInfo,
  type Instrumentation,
  type InvokeInfo,
  type InvokeObserver,
  type InvokeOutcome,
  type LayerInfo,
} from '../../src/index';
import { failure } from '../assertions';
import { ModelStage as Stage, echo as terminal } from '../fixtures';

interface Recording {
  readonly invokes: InvokeInfo[];
  readonly layers: (Omit<LayerInfo, 'stage' | 'parent'> & { readonly parent: string | undefined })[];
  readonly handlers: string[];
  readonly outcomes: InvokeOutcome[];
  readonly log: string[];
}

function recorder(label = 'rec'): { instrumentation: Instrumentation; recording: Recording } {
  const recording: Recording = { invokes: [], layers: [], handlers: [], outcomes: [], log: [] };
  const observer: InvokeObserver = {
    layer(info, events) {
      const { stage: _stage, parent, ...rest } = info;
      recording.layers.push({ ...rest, parent: parent === undefined ? undefined : `${parent.handler}#${parent.attempt}` });
      return (async function* observed() {
        recording.log.push(`${label}:enter ${info.handler}#${info.attempt}`);
        try {
          yield* events;
        } finally {
          recording.log.push(`${label}:leave ${info.handler}#${info.attempt}`);
        }
      })();
    },
    handlerStart: (info: HandlerInfo) =>
      recording.handlers.push(`start ${info.phase} ${info.handler} @${info.position} order ${info.order}`),
    handlerEnd: (info: HandlerInfo, ...error: unknown[]) =>
      recording.handlers.push(`end ${info.phase} ${info.handler}${error.length > 0 ? ` failed: ${(error[0] as Error).message}` : ''}`),
    end: (outcome) => recording.outcomes.push(outcome),
  };
  return {
    recording,
    instrumentation: {
      name: label,
      invoke(info) {
        recording.invokes.push(info);
        return observer;
      },
    },
  };
}

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

  describe('handlerStart and handlerEnd', () => {
    it('report each Input and Output handler, with the error when one fails', async () => {
      const registry = new MiddlewareRegistry();
      const { instrumentation, recording } = recorder();
      registry.instrument(instrumentation);
      registry.add(Stage.Input, function first(context) {
        return context;
      });
      registry.add(
        Stage.Input,
        function second(context) {
          return context;
        },
        { order: 1 },
      );
      registry.add(Stage.Output, function outer(result) {
        return result;
      });
      registry.add(
        Stage.Output,
        function inner(result) {
          return result;
        },
        { order: 4 },
      );
      await registry.run(Stage, { prompt: 'x' }, terminal);
      expect(recording.handlers).toEqual([
        'start input first @0 order 0',
        'end input first',
        'start input second @1 order 1',
        'end input second',
        'start output inner @1 order 4',
        'end output inner',
        'start output outer @0 order 0',
        'end output outer',
      ]);
    });

    it.each([
      [
        'an Input handler that throws',
        Stage.Input,
        () => {
          throw new Error('boom');
        },
        'end input bad failed: boom',
      ],
      ['an Input handler that breaks its contract', Stage.Input, () => undefined, 'end input bad failed: [ERR_INPUT_CONTRACT]'],
      [
        'an Output handler that throws',
        Stage.Output,
        () => {
          throw new Error('boom');
        },
        'end output bad failed: boom',
      ],
      ['an Output handler that breaks its contract', Stage.Output, () => 'raw', 'end output bad failed: [ERR_OUTPUT_CONTRACT]'],
    ])('report the failure of %s', async (_label, target, handler, expected) => {
      const registry = new MiddlewareRegistry();
      const { instrumentation, recording } = recorder();
      registry.instrument(instrumentation);
      registry.add(target as typeof Stage.Input, handler as never, { name: 'bad' });
      await expect(registry.run(Stage, { prompt: 'x' }, terminal)).rejects.toThrow();
      expect(recording.handlers).toHaveLength(2);
      expect(recording.handlers[1]).toContain(expected);
    });

    it.each([
      ['an Input handler', Stage.Input],
      ['an Output handler', Stage.Output],
    ])('pass the error argument when %s throws undefined', async (_label, target) => {
      const ends: { handler: string; arguments: number; error: unknown }[] = [];
      const registry = new MiddlewareRegistry();
      registry.instrument({
        name: 'ends',
        invoke: () => ({
          handlerEnd: (info: HandlerInfo, ...error: unknown[]) =>
            ends.push({ handler: info.handler, arguments: 1 + error.length, error: error[0] }),
        }),
      });
      registry.add(target as typeof Stage.Input, function silent() {
        throw undefined;
      });
      const thrown = await failure(registry.run(Stage, { prompt: 'x' }, terminal));
      expect(thrown).toBeUndefined();
      expect(ends).toEqual([{ handler: 'silent', arguments: 2, error: undefined }]);
    });
  });

  describe('end', () => {
    it('reports success with the result', async () => {
      const registry = new MiddlewareRegistry();
      const { instrumentation, recording } = recorder();
      registry.instrument(instrumentation);
      registry.add(Stage.Output, (result) => result.replace('changed'));
      await registry.run(Stage, { prompt: 'x' }, terminal);
      expect(recording.outcomes).toEqual([{ status: 'success', result: 'changed' }]);
    });

    it('reports success without Output handlers too', async () => {
      const registry = new MiddlewareRegistry();
      const { instrumentation, recording } = recorder();
      registry.instrument(instrumentation);
      await registry.run(Stage, { prompt: 'x' }, terminal);
      expect(recording.outcomes).toEqual([{ status: 'success', result: 'x' }]);
    });

    it('reports the error object unchanged', async () => {
      const registry = new MiddlewareRegistry();
      const { instrumentation, recording } = recorder();
      registry.instrument(instrumentation);
      const failure = new Error('down');
      await expect(
        registry.run(Stage, { prompt: 'x' }, async function* failing() {
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(recording.outcomes).toEqual([{ status: 'error', error: failure }]);
      expect((recording.outcomes[0] as { error: unknown }).error).toBe(failure);
    });

    it('reports a close by the consumer', async () => {
      const registry = new MiddlewareRegistry();
      const { instrumentation, recording } = recorder();
      registry.instrument(instrumentation);
      const events = registry.invoke(Stage, { prompt: 'x' }, async function* slow() {
        yield 'one';
        yield 'two';
      });
      await events.next();
      await events.return();
      expect(recording.outcomes).toEqual([{ status: 'closed' }]);
    });
  });

  describe('invoke', () => {
    it('receives the stage, the caller context and the signal', async () => {
      const registry = new MiddlewareRegistry();
      const { instrumentation, recording } = recorder();
      registry.instrument(instrumentation);
      registry.add(Stage.Input, () => ({ prompt: 'changed' }));
      const controller = new AbortController();
      await registry.run(Stage, { prompt: 'original' }, terminal, { signal: controller.signal });
      expect(recording.invokes).toEqual([{ stage: Stage, context: { prompt: 'original' }, signal: controller.signal }]);
    });

    it('observes invokes of child registries', async () => {
      const parent = new MiddlewareRegistry();
      const { instrumentation, recording } = recorder();
      parent.instrument(instrumentation);
      await parent.child().run(Stage, { prompt: 'x' }, terminal);
      expect(recording.outcomes).toEqual([{ status: 'success', result: 'x' }]);
    });

    it('stops observing after its disposer runs, twice harmlessly', async () => {
      const registry = new MiddlewareRegistry();
      const { instrumentation, recording } = recorder();
      const dispose = registry.instrument(instrumentation);
      dispose();
      dispose();
      await registry.run(Stage, { prompt: 'x' }, terminal);
      expect(recording.invokes).toEqual([]);
    });

    it.each([
      ['a number', 42, 'rec'],
      ['null', null, 'rec'],
      ['an observer whose end is not a function', { end: 'later' }, 'rec'],
      ['a number, from an instrumentation without a name', 42, 'anonymous instrumentation'],
    ])('fails the invoke at its start with ERR_INVALID_HANDLER when it returns %s', async (_label, produced, named) => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.instrument({ name: named === 'rec' ? 'rec' : (undefined as never), invoke: () => produced as never });
      registry.add(Stage.Input, (context) => (trace.push('input'), context));
      const error = await failure(registry.run(Stage, { prompt: 'x' }, terminal));
      const { code, stage, phase, handler } = error as MiddlewareError;
      expect({ code, stage, phase, handler, trace }).toEqual({
        code: 'ERR_INVALID_HANDLER',
        stage: 'model',
        phase: undefined,
        handler: named,
        trace: [],
      });
    });

    it.each([
      ['null', null],
      ['an object without invoke', { name: 'x' }],
      ['a function carrying invoke', Object.assign(function instrumentation() {}, { invoke: () => undefined })],
    ])('rejects %s with ERR_INVALID_HANDLER', (_label, value) => {
      let thrown: unknown;
      try {
        new MiddlewareRegistry().instrument(value as never);
      } catch (error) {
        thrown = error;
      }
      const { code, phase } = thrown as MiddlewareError;
      expect({ isError: MiddlewareError.isInstance(thrown), code, phase }).toEqual({
        isError: true,
        code: 'ERR_INVALID_HANDLER',
        phase: 'register',
      });
      expect((thrown as Error).message).toContain('registry.instrument expects { name, invoke(info) }');
    });
  });

  describe('cost when absent', () => {
    async function nextReturnsInnerGenerator(registry: MiddlewareRegistry): Promise<boolean> {
      let produced: unknown;
      let received: unknown;
      registry.add(Stage.Wrap, async function* outer(_context, next) {
        received = next();
        yield* received as AsyncGenerator<string>;
      });
      registry.add(Stage.Wrap, (context, next) => {
        produced = (async function* inner() {
          yield* next(context);
        })();
        return produced as AsyncGenerator<string>;
      });
      await registry.run(Stage, { prompt: 'x' }, terminal);
      return produced !== undefined && produced === received;
    }

    it('hands next() callers the inner layer generator itself without instrumentation', async () => {
      expect(await nextReturnsInnerGenerator(new MiddlewareRegistry())).toBe(true);
    });

    it('hands it over unwrapped when every instrumentation declines the invoke', async () => {
      const registry = new MiddlewareRegistry();
      let asked = 0;
      registry.instrument({ name: 'declines', invoke: () => (asked++, undefined) });
      expect(await nextReturnsInnerGenerator(registry)).toBe(true);
      expect(asked).toBe(1);
    });

    it('wraps it when an observer has a layer hook', async () => {
      const registry = new MiddlewareRegistry();
      registry.instrument(recorder().instrumentation);
      expect(await nextReturnsInnerGenerator(registry)).toBe(false);
    });

    it('leaves it unwrapped when observers have no layer hook', async () => {
      const registry = new MiddlewareRegistry();
      const ends: InvokeOutcome[] = [];
      registry.instrument({ name: 'ends', invoke: () => ({ end: (outcome) => ends.push(outcome) }) });
      expect(await nextReturnsInnerGenerator(registry)).toBe(true);
      expect(ends).toEqual([{ status: 'success', result: 'x' }]);
    });
  });
});
