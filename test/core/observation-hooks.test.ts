import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, type HandlerInfo } from '../../src/core/index';
import { failure } from '../assertions';
import { ModelStage as Stage, echo as terminal } from '../fixtures';
import { recorder } from './observation-recorder';

describe('MiddlewareRegistry.instrument', () => {
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
});
