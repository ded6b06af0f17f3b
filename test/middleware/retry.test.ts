import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { retry } from '../../src/middleware/index';
import { runStage, scriptedTerminal, throws, waits } from '../../src/testing/index';
import { MAX_TIMER_DELAY_MS } from '../../src/util/timers';
import { ModelStage, TextStage, answer, chunk, manualTimers, settle } from './fixtures';

const context = { prompt: 'hi' };

describe('retry', () => {
  describe('when a later attempt succeeds', () => {
    it('delivers only the successful attempt in commit mode', async () => {
      const overloaded = new Error('overloaded');
      const terminal = scriptedTerminal([
        [chunk('lost'), throws(overloaded)],
        [chunk('a'), answer('ok')],
      ]);
      const timers = manualTimers({ auto: true });
      const run = await runStage(ModelStage, { context, terminal, handlers: [[ModelStage.Wrap, retry({ timers, random: () => 0 })]] });
      expect(run).toMatchObject({ events: [chunk('a'), answer('ok')], result: answer('ok'), error: undefined });
      expect(run.calls.retry).toEqual({
        phase: 'wrap',
        activations: 1,
        received: [context],
        nextCalls: 2,
        nextContexts: [context, context],
        finallyRan: true,
      });
      expect(terminal.calls.map((call) => call.outcome)).toEqual(['threw', 'completed']);
      expect(timers.pending()).toBe(0);
    });

    it('marks the failed attempt with a boundary event in live mode', async () => {
      const overloaded = new Error('overloaded');
      const terminal = scriptedTerminal([
        [chunk('lost'), throws(overloaded)],
        [chunk('a'), answer('ok')],
      ]);
      const run = await runStage(ModelStage, {
        context,
        terminal,
        handlers: [[ModelStage.Wrap, retry({ stream: 'live', timers: manualTimers({ auto: true }) })]],
      });
      expect(run.events).toEqual([
        chunk('lost'),
        { type: 'attempt-boundary', handler: 'retry', failedAttempt: 1, nextAttempt: 2, error: overloaded },
        chunk('a'),
        answer('ok'),
      ]);
    });

    it('yields the event a custom boundary factory builds', async () => {
      const terminal = scriptedTerminal([[throws(new Error('x'))], ['done']]);
      const run = await runStage(TextStage, {
        context,
        terminal,
        handlers: [
          [
            TextStage.Wrap,
            retry({
              stream: { mode: 'live', boundary: (info) => `retrying ${info.failedAttempt}->${info.nextAttempt}` },
              backoff: () => 0,
            }),
          ],
        ],
      });
      expect(run.events).toEqual(['retrying 1->2', 'done']);
    });
  });

  describe('backoff', () => {
    it.each([
      {
        name: 'half jitter at random 0.5',
        backoff: { initialMs: 100, factor: 2, maxMs: 10_000, jitter: 0.5 },
        random: 0.5,
        delays: [75, 150, 300],
      },
      { name: 'no jitter', backoff: { initialMs: 100, factor: 3, jitter: 0 }, random: 0.9, delays: [100, 300, 900] },
      { name: 'capped by maxMs', backoff: { initialMs: 100, factor: 10, maxMs: 500, jitter: 0 }, random: 0, delays: [100, 500, 500] },
      { name: 'full jitter at random 0', backoff: { initialMs: 100, jitter: 1 }, random: 0, delays: [0, 0, 0] },
    ])('waits exponentially growing delays ($name)', async ({ backoff, random, delays }) => {
      const timers = manualTimers({ auto: true });
      const reported: number[] = [];
      const terminal = scriptedTerminal([[throws(new Error('1'))], [throws(new Error('2'))], [throws(new Error('3'))], ['ok']]);
      const run = await runStage(TextStage, {
        context,
        terminal,
        handlers: [
          [TextStage.Wrap, retry({ attempts: 4, backoff, random: () => random, timers, onRetry: (info) => reported.push(info.delayMs) })],
        ],
      });
      expect(run.result).toBe('ok');
      expect(reported).toEqual(delays);
      // A zero delay does not schedule a timer at all.
      expect(timers.delays).toEqual(delays.filter((delay) => delay > 0));
    });

    it('takes a function of the attempt number', async () => {
      const timers = manualTimers({ auto: true });
      const terminal = scriptedTerminal([[throws(new Error('1'))], [throws(new Error('2'))], ['ok']]);
      await runStage(TextStage, { context, terminal, handlers: [[TextStage.Wrap, retry({ backoff: (attempt) => attempt * 7, timers })]] });
      expect(timers.delays).toEqual([7, 14]);
    });

    // A computed delay of 2^31 ms or more used to end after about 1 ms (the runtime's timer limit).
    it('waits a delay of 2^31 ms or more in full, in slices of at most 2^31 - 1 ms', async () => {
      const timers = manualTimers();
      const terminal = scriptedTerminal([[throws(new Error('1'))], ['ok']]);
      const running = runStage(TextStage, { context, terminal, handlers: [[TextStage.Wrap, retry({ backoff: () => 2 ** 32, timers })]] });
      await settle();
      await timers.advance(2 ** 32 - 1);
      expect([terminal.calls.length, timers.delays]).toEqual([1, [MAX_TIMER_DELAY_MS, MAX_TIMER_DELAY_MS, 2]]);
      await timers.advance(1);
      expect((await running).result).toBe('ok');
      expect(timers.pending()).toBe(0);
    });

    it.each([
      { delay: Number.NaN, waits: false },
      { delay: -1, waits: false },
      { delay: Infinity, waits: true },
    ])('for a backoff function returning $delay, waits until the signal aborts: $waits', async ({ delay, waits: waitsForAbort }) => {
      const timers = manualTimers();
      const controller = new AbortController();
      const terminal = scriptedTerminal([[throws(new Error('1'))], ['ok']]);
      const running = runStage(TextStage, {
        context,
        terminal,
        signal: controller.signal,
        handlers: [[TextStage.Wrap, retry({ backoff: () => delay, timers })]],
      });
      await settle();
      controller.abort('stop');
      const run = await running;
      expect([terminal.calls.length, run.result, MiddlewareError.isInstance(run.error) && run.error.code, timers.delays]).toEqual(
        waitsForAbort ? [1, undefined, 'ERR_ABORTED', []] : [2, 'ok', false, []],
      );
    });
  });

  describe('when every attempt fails', () => {
    it('throws the last error unchanged after the given number of attempts', async () => {
      const last = new Error('third');
      const terminal = scriptedTerminal([[throws(new Error('first'))], [throws(new Error('second'))], [throws(last)]]);
      const run = await runStage(TextStage, { context, terminal, handlers: [[TextStage.Wrap, retry({ attempts: 3, backoff: () => 0 })]] });
      expect(run.error).toBe(last);
      expect(terminal.calls).toHaveLength(3);
    });

    it('gives up at once when retryOn declines', async () => {
      const fatal = new Error('bad request');
      const seen: [unknown, number][] = [];
      const terminal = scriptedTerminal([[throws(fatal)], ['ok']]);
      const run = await runStage(TextStage, {
        context,
        terminal,
        handlers: [[TextStage.Wrap, retry({ retryOn: (error, attempt) => (seen.push([error, attempt]), false) })]],
      });
      expect(run.error).toBe(fatal);
      expect(seen).toEqual([[fatal, 1]]);
      expect(terminal.calls).toHaveLength(1);
    });

    it.each([
      { code: 'ERR_INVALID_EVENT', retried: false },
      { code: 'ERR_NO_RESULT', retried: false },
      { code: 'ERR_TIMEOUT', retried: true },
    ] as const)('retries a MiddlewareError $code by default: $retried', async ({ code, retried }) => {
      const error = new MiddlewareError({ code, message: 'test' });
      const terminal = scriptedTerminal([[throws(error)], ['ok']]);
      const run = await runStage(TextStage, { context, terminal, handlers: [[TextStage.Wrap, retry({ backoff: () => 0 })]] });
      expect(terminal.calls).toHaveLength(retried ? 2 : 1);
      expect(run.error).toBe(retried ? undefined : error);
    });

    it('never retries ERR_ABORTED, whatever retryOn says', async () => {
      const abortError = new MiddlewareError({ code: 'ERR_ABORTED', message: 'test' });
      const terminal = scriptedTerminal([[throws(abortError)], ['ok']]);
      const run = await runStage(TextStage, {
        context,
        terminal,
        handlers: [[TextStage.Wrap, retry({ retryOn: () => true, backoff: () => 0 })]],
      });
      expect(run.error).toBe(abortError);
      expect(terminal.calls).toHaveLength(1);
    });
  });

  describe('under abort', () => {
    it('ends the backoff wait at once, clears its timer and reports ERR_ABORTED', async () => {
      const timers = manualTimers();
      const controller = new AbortController();
      const terminal = scriptedTerminal([[throws(new Error('overloaded'))], ['ok']]);
      const running = runStage(TextStage, {
        context,
        terminal,
        signal: controller.signal,
        handlers: [[TextStage.Wrap, retry({ backoff: () => 5_000, timers })]],
      });
      await settle();
      expect(timers.pending()).toBe(1);
      controller.abort('user left');
      const run = await running;
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_ABORTED');
      expect((run.error as Error).cause).toBe('user left');
      expect(timers.pending()).toBe(0);
      expect(terminal.calls).toHaveLength(1);
      expect(run.calls.retry?.finallyRan).toBe(true);
    });

    it('does not retry when the signal aborted the attempt', async () => {
      const controller = new AbortController();
      const terminal = scriptedTerminal([[chunk('a'), waits(Infinity)], [answer('never')]]);
      const running = runStage(ModelStage, {
        context,
        terminal,
        signal: controller.signal,
        handlers: [[ModelStage.Wrap, retry({ retryOn: () => true, backoff: () => 0 })]],
      });
      await settle();
      controller.abort('stop');
      const run = await running;
      expect(MiddlewareError.isInstance(run.error) && run.error.code).toBe('ERR_ABORTED');
      expect(terminal.calls).toHaveLength(1);
    });

    it('closes the attempt it is streaming when the consumer stops', async () => {
      const terminal = scriptedTerminal([[chunk('a'), chunk('b'), answer('c')]]);
      const { MiddlewareRegistry } = await import('../../src/core/index');
      const registry = new MiddlewareRegistry();
      registry.add(ModelStage.Wrap, retry({ stream: 'live' }));
      const events = registry.invoke(ModelStage, context, terminal);
      expect(await events.next()).toEqual({ value: chunk('a'), done: false });
      expect(await events.return()).toEqual({ value: undefined, done: true });
      expect(terminal.calls.map((call) => call.outcome)).toEqual(['closed']);
    });
  });

  describe('when next() itself throws', () => {
    it('treats it as a failed attempt: registered with next: at-most-once, the second attempt reports ERR_NEXT_POLICY', async () => {
      const terminal = scriptedTerminal([[throws(new Error('first'))], ['ok']]);
      const run = await runStage(TextStage, {
        context,
        terminal,
        handlers: [[TextStage.Wrap, retry({ backoff: () => 0 }), { next: 'at-most-once' }]],
      });
      expect(MiddlewareError.isInstance(run.error) && [run.error.code, run.error.handler]).toEqual(['ERR_NEXT_POLICY', 'retry']);
      expect(terminal.calls).toHaveLength(1);
    });
  });

  describe('options', () => {
    it.each([
      { options: { attempts: 0 }, problem: 'attempts' },
      { options: { attempts: 1.5 }, problem: 'attempts' },
      { options: { backoff: { initialMs: -1 } }, problem: 'initialMs' },
      { options: { backoff: { jitter: 2 } }, problem: 'jitter' },
      { options: { backoff: 5 }, problem: 'backoff' },
      { options: null, problem: 'options must be' },
      { options: { retryOn: 'yes' }, problem: 'retryOn' },
      { options: { onRetry: 'log' }, problem: 'onRetry' },
      { options: { random: 0.5 }, problem: 'random' },
      { options: { timers: { now: () => 0 } }, problem: 'options.timers' },
      { options: { stream: 'sometimes' }, problem: 'stream' },
    ])('rejects $problem with ERR_INVALID_OPTIONS', ({ options, problem }) => {
      let caught: unknown;
      try {
        retry(options as never);
      } catch (error) {
        caught = error;
      }
      expect(MiddlewareError.isInstance(caught) && caught.code).toBe('ERR_INVALID_OPTIONS');
      expect((caught as Error).message).toContain(problem);
      expect((caught as MiddlewareError).handler).toBe('retry');
    });
  });
});
