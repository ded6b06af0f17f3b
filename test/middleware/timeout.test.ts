import { describe, expect, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/index';
import { retry, timeout } from '../../src/middleware/index';
import { runStage, scriptedTerminal, waits } from '../../src/testing/index';
import { ModelStage, TextStage, answer, chunk, manualTimers, settle } from './fixtures';

const context = { prompt: 'hi' };

describe('timeout', () => {
  describe('when the inner chain finishes in time', () => {
    it('forwards every event and clears its timer', async () => {
      const timers = manualTimers();
      const terminal = scriptedTerminal([[chunk('a'), answer('ok')]]);
      const run = await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, timeout(1_000, { timers })]] });
      expect(run.events).toEqual([chunk('a'), answer('ok')]);
      expect(timers.delays).toEqual([1_000]);
      expect(timers.pending()).toBe(0);
    });
  });

  describe('when the deadline passes', () => {
    it('aborts the inner signal with the timeout error and throws ERR_TIMEOUT naming stage and handler', async () => {
      const timers = manualTimers();
      const terminal = scriptedTerminal([[chunk('a'), waits(Infinity)]]);
      const running = runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, timeout(1_000, { timers })]] });
      await settle();
      await timers.advance(999);
      expect(terminal.calls[0]?.signal.aborted).toBe(false);
      await timers.advance(1);
      const run = await running;
      const error = run.error as MiddlewareError;
      expect([error.code, error.stage, error.phase, error.handler]).toEqual(['ERR_TIMEOUT', 'model', 'wrap', 'timeout']);
      expect(error.message).toContain('1000 ms');
      expect(terminal.calls[0]?.signal.reason).toBe(error);
      expect(run.events).toEqual([chunk('a')]);
      expect(timers.pending()).toBe(0);
    });

    it('cuts off a terminal that ignores its signal at its next event', async () => {
      const timers = manualTimers();
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const stubborn = async function* stubborn(): AsyncGenerator<string, void, undefined> {
        await gate;
        yield 'late';
      };
      const running = runStage(TextStage, { context, terminal: stubborn, handlers: [[TextStage.Wrap, timeout(50, { timers })]] });
      await settle();
      await timers.advance(50);
      release();
      const run = await running;
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_TIMEOUT');
      expect(run.events).toEqual([]);
    });

    it('lets an outer retry run a fresh attempt', async () => {
      const timers = manualTimers();
      const terminal = scriptedTerminal([[waits(Infinity)], ['second']]);
      const running = runStage(TextStage, {
        context,
        terminal,
        handlers: [
          [TextStage.Wrap, retry({ backoff: () => 0 })],
          [TextStage.Wrap, timeout(100, { timers })],
        ],
      });
      await settle();
      await timers.advance(100);
      const run = await running;
      expect(run.result).toBe('second');
      expect(terminal.calls.map((call) => call.outcome)).toEqual(['threw', 'completed']);
      expect(run.calls.timeout?.activations).toBe(2);
      expect(timers.pending()).toBe(0);
    });
  });

  describe('under abort', () => {
    it('reports ERR_ABORTED when the outer signal fires first, and clears its timer', async () => {
      const timers = manualTimers();
      const controller = new AbortController();
      const terminal = scriptedTerminal([[waits(Infinity)]]);
      const running = runStage(TextStage, { context, terminal, signal: controller.signal, handlers: [[TextStage.Wrap, timeout(1_000, { timers })]] });
      await settle();
      controller.abort('user');
      const run = await running;
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_ABORTED');
      expect((run.error as Error).cause).toBe('user');
      expect(timers.pending()).toBe(0);
    });

    it('keeps an inner timeout from claiming an outer timeout', async () => {
      const timers = manualTimers();
      const terminal = scriptedTerminal([[waits(Infinity)]]);
      const running = runStage(TextStage, {
        context,
        terminal,
        handlers: [
          [TextStage.Wrap, timeout(100, { timers }), { name: 'outer' }],
          [TextStage.Wrap, timeout(1_000, { timers }), { name: 'inner' }],
        ],
      });
      await settle();
      await timers.advance(100);
      const run = await running;
      expect((run.error as MiddlewareError).handler).toBe('outer');
      expect(timers.pending()).toBe(0);
    });

    it('clears its timer when the consumer stops early', async () => {
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(ModelStage.Wrap, timeout(1_000, { timers }));
      const events = registry.invoke(ModelStage, context, scriptedTerminal([[chunk('a'), chunk('b'), answer('c')]]));
      await events.next();
      expect(timers.pending()).toBe(1);
      await events.return();
      expect(timers.pending()).toBe(0);
    });
  });

  describe('options', () => {
    it.each([0, -5, Number.NaN, Infinity, '100'])('rejects %s ms with ERR_INVALID_OPTIONS', (ms) => {
      expect(() => timeout(ms as number)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'timeout' }));
    });

    it.each([
      { options: null, problem: 'options must be' },
      { options: { timers: { setTimeout: () => 1 } }, problem: 'options.timers' },
    ])('rejects bad $problem with ERR_INVALID_OPTIONS', ({ options, problem }) => {
      expect(() => timeout(100, options as never)).toThrow(expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'timeout', message: expect.stringContaining(problem) }));
    });
  });
});
