import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry, type InvokeOutcome } from '../../src/core/index';
import { failure } from '../assertions';
import { ModelStage as Stage, echo as terminal } from '../fixtures';
import { recorder } from './observation-recorder';

describe('MiddlewareRegistry.instrument', () => {
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
