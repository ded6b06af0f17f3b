/**
 * `rateLimit({ limiter })`: a quota kept by a shared limiter (MW-181). The
 * rate across processes against a real Redis is checked by
 * `npm run test:integration`; here the limiter is scripted, or
 * `rate-limiter-flexible`'s in-memory limiter.
 */
import { getEventListeners } from 'node:events';
import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { MiddlewareError, MiddlewareRegistry } from '../../src/core/index';
import { rateLimit, type SharedLimiter } from '../../src/middleware/index';
import { runStage, scriptedTerminal } from '../../src/testing/index';
import { TextStage, manualTimers, settle } from './fixtures';

const context = { prompt: 'hi' };

/** One scripted answer of `consume`. */
type Answer = 'grant' | { msBeforeNext: number } | { fail: unknown } | 'pending';

/** A limiter answering from a script (the last answer repeating) and recording every call. */
function scriptedLimiter(answers: Answer[], options: { reward?: boolean } = {}) {
  const calls: string[] = [];
  const pending: { resolve: () => void; reject: (reason: unknown) => void }[] = [];
  const limiter: SharedLimiter = {
    consume(key, points) {
      calls.push(`consume ${key} ${points}`);
      const answer = answers[Math.min(calls.filter((call) => call.startsWith('consume')).length - 1, answers.length - 1)];
      if (answer === 'grant') return Promise.resolve({ remainingPoints: 0 });
      if (answer === 'pending')
        return new Promise((resolve, reject) =>
          pending.push({
            resolve: () => {
              resolve({});
            },
            reject,
          }),
        );
      if (answer !== undefined && 'fail' in answer) return Promise.reject(answer.fail);
      return Promise.reject({ remainingPoints: 0, ...answer });
    },
    ...(options.reward === false ? {} : { reward: (key: string, points: number) => void calls.push(`reward ${key} ${points}`) }),
  };
  return { limiter, calls, pending };
}

/** The code of a MiddlewareError, else the value itself. */
function codeOf(error: unknown): unknown {
  return MiddlewareError.isInstance(error) ? error.code : error;
}

describe('rateLimit', () => {
  describe('with a shared limiter', () => {
    it('consumes under its key before it starts, waiting out each spent answer (at least 1 ms)', async () => {
      const timers = manualTimers({ auto: true });
      const { limiter, calls } = scriptedLimiter([{ msBeforeNext: 0 }, { msBeforeNext: -5 }, { msBeforeNext: 1_500 }, 'grant']);
      const terminal = scriptedTerminal([['ok']]);
      const run = await runStage(TextStage, {
        context,
        terminal,
        handlers: [[TextStage.Wrap, rateLimit({ limiter, key: 'openai:gpt', points: 3, timers })]],
      });
      expect([run.result, calls, timers.delays, timers.pending()]).toEqual([
        'ok',
        ['consume openai:gpt 3', 'consume openai:gpt 3', 'consume openai:gpt 3', 'consume openai:gpt 3'],
        [1, 1, 1_500],
        0,
      ]);
    });

    it("uses the key 'staged-middleware.rateLimit' and one point by default", async () => {
      const { limiter, calls } = scriptedLimiter(['grant']);
      await runStage(TextStage, { context, terminal: scriptedTerminal([['ok']]), handlers: [[TextStage.Wrap, rateLimit({ limiter })]] });
      expect(calls).toEqual(['consume staged-middleware.rateLimit 1']);
    });

    it.each([
      ['an Error', new Error('redis down')],
      ['a string', 'redis down'],
      ['an object without msBeforeNext', { reason: 'down' }],
      ['a spent answer whose msBeforeNext is NaN', { msBeforeNext: Number.NaN }],
    ])('fails with %s the limiter rejects with, unchanged, without calling next', async (_name, failure) => {
      const { limiter } = scriptedLimiter([{ fail: failure }]);
      const terminal = scriptedTerminal([['ok']]);
      const run = await runStage(TextStage, { context, terminal, handlers: [[TextStage.Wrap, rateLimit({ limiter })]] });
      expect([run.error, terminal.calls.length]).toEqual([failure, 0]);
      expect(run.error).toBe(failure);
    });

    it('fails with what a consume that throws throws', async () => {
      const broken = new Error('not connected');
      const limiter: SharedLimiter = {
        consume: () => {
          throw broken;
        },
      };
      const run = await runStage(TextStage, {
        context,
        terminal: scriptedTerminal([['ok']]),
        handlers: [[TextStage.Wrap, rateLimit({ limiter })]],
      });
      expect(run.error).toBe(broken);
    });

    it('never calls consume when the signal is aborted on arrival', async () => {
      const { limiter, calls } = scriptedLimiter(['grant']);
      const run = await runStage(TextStage, {
        context,
        terminal: scriptedTerminal([['ok']]),
        signal: AbortSignal.abort('gone'),
        handlers: [[TextStage.Wrap, rateLimit({ limiter })]],
      });
      expect([codeOf(run.error), calls]).toEqual(['ERR_ABORTED', []]);
    });
  });

  describe('with a shared limiter, under abort', () => {
    it('ends a wait for a pending consume at once and gives back the points granted later', async () => {
      const { limiter, calls, pending } = scriptedLimiter(['pending']);
      const controller = new AbortController();
      const terminal = scriptedTerminal([['ok']]);
      const running = runStage(TextStage, {
        context,
        terminal,
        signal: controller.signal,
        handlers: [[TextStage.Wrap, rateLimit({ limiter, key: 'k', points: 2 })]],
      });
      await settle();
      controller.abort('user left');
      const run = await running;
      expect([codeOf(run.error), (run.error as Error).cause, calls, getEventListeners(controller.signal, 'abort').length]).toEqual([
        'ERR_ABORTED',
        'user left',
        ['consume k 2'],
        0,
      ]);
      pending[0]?.resolve();
      await settle();
      expect([calls, terminal.calls.length]).toEqual([['consume k 2', 'reward k 2'], 0]);
    });

    it('gives nothing back when the pending consume later answers spent', async () => {
      const { limiter, calls, pending } = scriptedLimiter(['pending']);
      const controller = new AbortController();
      const running = runStage(TextStage, {
        context,
        terminal: scriptedTerminal([['ok']]),
        signal: controller.signal,
        handlers: [[TextStage.Wrap, rateLimit({ limiter, key: 'k' })]],
      });
      await settle();
      controller.abort('user left');
      await running;
      pending[0]?.reject({ msBeforeNext: 10 });
      await settle();
      expect(calls).toEqual(['consume k 1']);
    });

    it('ends a wait for the quota at once, clearing its timer and consuming no more', async () => {
      const timers = manualTimers();
      const { limiter, calls } = scriptedLimiter([{ msBeforeNext: 30_000 }]);
      const controller = new AbortController();
      const running = runStage(TextStage, {
        context,
        terminal: scriptedTerminal([['ok']]),
        signal: controller.signal,
        handlers: [[TextStage.Wrap, rateLimit({ limiter, key: 'k', timers })]],
      });
      await settle();
      expect([timers.delays, timers.pending()]).toEqual([[30_000], 1]);
      controller.abort('user left');
      const run = await running;
      expect([codeOf(run.error), timers.pending(), calls, getEventListeners(controller.signal, 'abort').length]).toEqual([
        'ERR_ABORTED',
        0,
        ['consume k 1'],
        0,
      ]);
    });

    it('waits a spent answer of Infinity with no timer, until the signal aborts', async () => {
      const timers = manualTimers();
      const { limiter } = scriptedLimiter([{ msBeforeNext: Infinity }]);
      const controller = new AbortController();
      const running = runStage(TextStage, {
        context,
        terminal: scriptedTerminal([['ok']]),
        signal: controller.signal,
        handlers: [[TextStage.Wrap, rateLimit({ limiter, timers })]],
      });
      await settle();
      expect(timers.delays).toEqual([]);
      controller.abort('stop');
      expect(codeOf((await running).error)).toBe('ERR_ABORTED');
    });

    it('gives back points granted between the grant and the start', async () => {
      const { limiter, calls } = scriptedLimiter(['grant']);
      const controller = new AbortController();
      // The grant settles the wait; the abort lands before the activation resumes to call next().
      const racing: SharedLimiter = {
        consume: (key, points) =>
          limiter.consume(key, points).then(
            (granted) => (
              queueMicrotask(() => {
                controller.abort('late');
              }),
              granted
            ),
          ),
        reward: (key, points) => limiter.reward?.(key, points),
      };
      const terminal = scriptedTerminal([['ok']]);
      const run = await runStage(TextStage, {
        context,
        terminal,
        signal: controller.signal,
        handlers: [[TextStage.Wrap, rateLimit({ limiter: racing, key: 'k' })]],
      });
      expect([codeOf(run.error), calls, terminal.calls.length]).toEqual(['ERR_ABORTED', ['consume k 1', 'reward k 1'], 0]);
    });

    it.each([
      ['has no reward', { reward: false }, undefined],
      ['has a reward that throws', {}, 'throws'],
      ['has a reward that rejects', {}, 'rejects'],
    ] as const)('leaves the quota alone, failing nothing, when the limiter %s', async (_name, options, rewardFails) => {
      const { limiter, pending } = scriptedLimiter(['pending'], options);
      const failing: SharedLimiter =
        rewardFails === undefined
          ? limiter
          : {
              consume: limiter.consume.bind(limiter),
              reward: () => {
                if (rewardFails === 'throws') throw new Error('reward failed');
                return Promise.reject(new Error('reward failed'));
              },
            };
      const controller = new AbortController();
      const running = runStage(TextStage, {
        context,
        terminal: scriptedTerminal([['ok']]),
        signal: controller.signal,
        handlers: [[TextStage.Wrap, rateLimit({ limiter: failing })]],
      });
      await settle();
      controller.abort('stop');
      expect(codeOf((await running).error)).toBe('ERR_ABORTED');
      pending[0]?.resolve();
      await settle();
    });
  });

  describe('with rate-limiter-flexible', () => {
    it('takes a RateLimiterMemory as it is, waiting the msBeforeNext it rejects with', async () => {
      expectTypeOf(new RateLimiterMemory({ points: 1, duration: 60 })).toExtend<SharedLimiter>();
      const limiter = new RateLimiterMemory({ points: 1, duration: 60, keyPrefix: 'test' });
      const timers = manualTimers();
      const registry = new MiddlewareRegistry();
      registry.add(TextStage.Wrap, rateLimit({ limiter, key: 'provider', timers }));
      const controller = new AbortController();
      const terminal = scriptedTerminal([['first'], ['second']]);
      expect(await registry.run(TextStage, context, terminal)).toBe('first');
      const second = registry.run(TextStage, context, terminal, { signal: controller.signal }).catch((error: unknown) => error);
      for (let turn = 0; turn < 20 && timers.delays.length === 0; turn++) await settle();
      const spent = (await limiter.get('provider')) as RateLimiterRes;
      expect([timers.delays.length, Math.abs((timers.delays[0] ?? 0) - spent.msBeforeNext) < 1_000, spent.consumedPoints]).toEqual([
        1,
        true,
        2,
      ]);
      controller.abort('enough');
      expect([codeOf(await second), terminal.calls.length]).toEqual(['ERR_ABORTED', 1]);
    });
  });

  describe('options of a shared limiter', () => {
    it.each([
      { options: { limiter: {} }, problem: 'options.limiter' },
      { options: { limiter: null }, problem: 'options.limiter' },
      { options: { limiter: { consume: () => Promise.resolve(), reward: 1 } }, problem: 'options.limiter' },
      { options: { limiter: { consume: () => Promise.resolve() }, key: '' }, problem: 'options.key' },
      { options: { limiter: { consume: () => Promise.resolve() }, key: 7 }, problem: 'options.key' },
      { options: { limiter: { consume: () => Promise.resolve() }, points: 0.5 }, problem: 'options.points' },
      { options: { limiter: { consume: () => Promise.resolve() }, timers: { now: () => 0 } }, problem: 'options.timers' },
    ])('rejects $problem with ERR_INVALID_OPTIONS', ({ options, problem }) => {
      expect(() => rateLimit(options as never)).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'rateLimit', message: expect.stringContaining(problem) }),
      );
    });
  });
});
