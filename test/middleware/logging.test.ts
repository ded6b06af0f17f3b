import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { logging, retry, type LogRecord } from '../../src/middleware/index';
import { runStage, scriptedTerminal, throws, waits } from '../../src/testing/index';
import { ModelStage, answer, chunk, settle, terminalFailingOnClose, type ModelContext } from './fixtures';

const context: ModelContext = { prompt: 'hi' };

describe('logging', () => {
  describe('a retried invoke', () => {
    it('writes start, end and error records per layer entry, errors to logger.error', async () => {
      const info: LogRecord[] = [];
      const errors: LogRecord[] = [];
      let clock = 0;
      const overloaded = new Error('overloaded');
      const terminal = scriptedTerminal([[throws(overloaded)], [chunk('a'), answer('ok')]]);
      await runStage(ModelStage, {
        context,
        terminal,
        handlers: [
          [
            ModelStage.Input,
            function tag(value: ModelContext) {
              clock += 1;
              return value;
            },
          ],
          [ModelStage.Wrap, retry({ backoff: () => 0 })],
        ],
        instrument: [
          logging({ logger: { info: (record) => info.push(record), error: (record) => errors.push(record) }, now: () => clock }),
        ],
      });
      const retryBase = { stage: 'model', phase: 'wrap', handler: 'retry', position: 0, attempt: 1 };
      const terminalBase = { stage: 'model', phase: 'terminal', handler: 'terminal', position: 1 };
      expect(info).toEqual([
        { event: 'invoke.start', stage: 'model' },
        { event: 'handler.end', stage: 'model', phase: 'input', handler: 'tag', position: 0 },
        { event: 'layer.start', ...retryBase },
        { event: 'layer.start', ...terminalBase, attempt: 1 },
        { event: 'layer.start', ...terminalBase, attempt: 2 },
        { event: 'layer.end', ...terminalBase, attempt: 2, events: 2, durationMs: 0, closed: false },
        { event: 'layer.end', ...retryBase, events: 2, durationMs: 0, closed: false },
        { event: 'invoke.end', stage: 'model', status: 'success' },
      ]);
      expect(errors).toEqual([{ event: 'layer.error', ...terminalBase, attempt: 1, events: 0, durationMs: 0, error: overloaded }]);
    });
  });

  describe('a failing invoke', () => {
    it('reports handler and invoke errors through a logger function', async () => {
      const records: LogRecord[] = [];
      const boom = new Error('boom');
      await runStage(ModelStage, {
        context,
        terminal: scriptedTerminal([[answer('x')]]),
        handlers: [
          [
            ModelStage.Output,
            function explode(): never {
              throw boom;
            },
          ],
        ],
        instrument: [logging({ logger: (record) => records.push(record) })],
      });
      expect(records.filter((record) => record.error !== undefined)).toEqual([
        { event: 'handler.error', stage: 'model', phase: 'output', handler: 'explode', position: 0, error: boom },
        { event: 'invoke.end', stage: 'model', status: 'error', error: boom },
      ]);
    });
  });

  describe('a handler that throws undefined', () => {
    it('is still reported as a handler error, not as a handler that ended', async () => {
      const records: LogRecord[] = [];
      await runStage(ModelStage, {
        context,
        terminal: scriptedTerminal([[answer('x')]]),
        handlers: [
          [
            ModelStage.Input,
            function nothing(): never {
              throw undefined;
            },
          ],
        ],
        instrument: [logging({ logger: (record) => records.push(record) })],
      });
      expect(records.filter((record) => record.event.startsWith('handler.'))).toEqual([
        { event: 'handler.error', stage: 'model', phase: 'input', handler: 'nothing', position: 0, error: undefined },
      ]);
    });
  });

  describe('under abort and early close', () => {
    it('logs the aborted layers as errors and the invoke as failed with ERR_ABORTED', async () => {
      const records: LogRecord[] = [];
      const controller = new AbortController();
      const running = runStage(ModelStage, {
        context,
        terminal: scriptedTerminal([[chunk('a'), waits(Infinity)]]),
        signal: controller.signal,
        instrument: [logging({ logger: (record) => records.push(record), now: () => 0 })],
      });
      await settle();
      controller.abort('stop');
      await running;
      expect(
        records.map((record) => [
          record.event,
          record.handler,
          MiddlewareError.isInstance(record.error) ? record.error.code : record.error,
        ]),
      ).toEqual([
        ['invoke.start', undefined, undefined],
        ['layer.start', 'terminal', undefined],
        ['layer.error', 'terminal', 'stop'],
        ['invoke.end', undefined, 'ERR_ABORTED'],
      ]);
    });

    it('records a layer the consumer closed as closed', async () => {
      const records: LogRecord[] = [];
      const registry = new MiddlewareRegistry();
      registry.instrument(logging({ logger: (record) => records.push(record), now: () => 0 }));
      const events = registry.invoke(ModelStage, context, scriptedTerminal([[chunk('a'), answer('b')]]));
      await events.next();
      await events.return();
      expect(records.slice(2)).toEqual([
        {
          event: 'layer.end',
          stage: 'model',
          phase: 'terminal',
          handler: 'terminal',
          position: 0,
          attempt: 1,
          events: 1,
          durationMs: 0,
          closed: true,
        },
        { event: 'invoke.end', stage: 'model', status: 'closed' },
      ]);
    });

    it('logs an error thrown while closing a layer', async () => {
      const records: LogRecord[] = [];
      const cleanupFailed = new Error('cleanup failed');
      const registry = new MiddlewareRegistry();
      registry.instrument(logging({ logger: (record) => records.push(record), now: () => 0 }));
      const events = registry.invoke(ModelStage, context, terminalFailingOnClose(cleanupFailed));
      await events.next();
      await expect(events.return()).rejects.toBe(cleanupFailed);
      expect(records.find((record) => record.event === 'layer.error')).toEqual({
        event: 'layer.error',
        stage: 'model',
        phase: 'terminal',
        handler: 'terminal',
        position: 0,
        attempt: 1,
        events: 1,
        durationMs: 0,
        error: cleanupFailed,
      });
    });
  });

  describe('what it returns', () => {
    it('is a frozen instrumentation named logging, for registry.instrument', () => {
      const instrumentation = logging({ logger: () => undefined });
      expect([instrumentation.name, typeof instrumentation.invoke, Object.isFrozen(instrumentation)]).toEqual([
        'logging',
        'function',
        true,
      ]);
    });
  });

  describe('options', () => {
    it.each([undefined, {}, { info: () => undefined }, 'console'])('rejects logger %j with ERR_INVALID_OPTIONS', (logger) => {
      expect(() => logging({ logger } as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'logging' }));
    });

    it('rejects a clock that is not a function with ERR_INVALID_OPTIONS', () => {
      expect(() => logging({ logger: () => undefined, now: 5 } as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'logging', message: expect.stringContaining('options.now') }),
      );
    });
  });
});
