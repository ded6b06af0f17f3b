import { describe, expect, it } from 'vitest';
import { MiddlewareError } from '../../src/core/index';
import { isRetryableError, retry } from '../../src/middleware/index';
import { retryAfterMs, statusOf } from '../../src/middleware/retryable';
import { runStage, scriptedTerminal, throws } from '../../src/testing/index';
import { TextStage, manualTimers, settle } from './fixtures';

/** An error shaped like the Vercel AI SDK's APICallError. */
function apiCallError(statusCode: number | undefined, isRetryable: boolean, responseHeaders?: Record<string, string>): Error {
  return Object.assign(new Error('AI_APICallError'), {
    name: 'AI_APICallError',
    statusCode,
    isRetryable,
    responseHeaders,
    url: 'https://api.example/v1',
    requestBodyValues: {},
  });
}

/** An error shaped like the OpenAI and Anthropic SDKs' APIError, with web `Headers`. */
function sdkError(status: number, headers: Record<string, string> = {}): Error {
  return Object.assign(new Error(`${status} status code`), { status, headers: new Headers(headers), error: { type: 'error' } });
}

/** An error shaped like an axios error: the status and headers on `response`. */
function axiosError(status: number, headers: Record<string, string> = {}): Error {
  return Object.assign(new Error(`Request failed with status code ${status}`), { isAxiosError: true, response: { status, headers } });
}

/** A network failure as fetch reports it: no status. */
function networkError(): Error {
  return Object.assign(new TypeError('fetch failed'), {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:443'), { code: 'ECONNREFUSED' }),
  });
}

describe('isRetryableError', () => {
  describe.each([
    ['the OpenAI and Anthropic SDKs (status, Headers)', sdkError],
    ['axios (response.status)', axiosError],
    ['a plain status code (statusCode)', (status: number) => Object.assign(new Error('http'), { statusCode: status })],
  ])('for errors shaped like %s', (_shape, make) => {
    it.each([
      [408, true],
      [429, true],
      [500, true],
      [502, true],
      [503, true],
      [599, true],
      [400, false],
      [401, false],
      [403, false],
      [404, false],
      [409, false],
      [422, false],
    ])('classifies status %i as retryable: %s', (status, retryable) => {
      expect(isRetryableError(make(status))).toBe(retryable);
    });
  });

  describe('for errors shaped like the AI SDK APICallError', () => {
    it.each([
      [429, true, true],
      [400, true, true],
      [500, false, false],
      [undefined, true, true],
      [undefined, false, false],
    ])('follows isRetryable over the status (statusCode %s, isRetryable %s)', (statusCode, isRetryable, expected) => {
      expect(isRetryableError(apiCallError(statusCode, isRetryable))).toBe(expected);
    });
  });

  describe('for errors without a status', () => {
    it.each([
      ['a plain Error', new Error('boom')],
      ['a network failure', networkError()],
      ['a thrown string', 'boom'],
      ['undefined', undefined],
      ['a status below 400', Object.assign(new Error('moved'), { status: 302 })],
      ['a status that is not an integer in 100–599', Object.assign(new Error('odd'), { status: '404', statusCode: 42.5 })],
    ])('retries %s', (_name, error) => {
      expect(isRetryableError(error)).toBe(true);
    });
  });

  describe('for the package contract errors', () => {
    it.each([
      ['ERR_TIMEOUT', true],
      ['ERR_NO_RESULT', false],
      ['ERR_INVALID_EVENT', false],
    ] as const)('classifies %s as retryable: %s', (code, retryable) => {
      expect(isRetryableError(new MiddlewareError({ code, message: 'test' }))).toBe(retryable);
    });

    it('ignores an isRetryable property on a contract error', () => {
      expect(isRetryableError(Object.assign(new MiddlewareError({ code: 'ERR_NO_RESULT', message: 'test' }), { isRetryable: true }))).toBe(
        false,
      );
    });
  });
});

describe('statusOf', () => {
  it('reads status, then statusCode, then response.status, skipping values that are not statuses', () => {
    expect([
      statusOf({ status: 404, statusCode: 500, response: { status: 502 } }),
      statusOf({ status: 'x', statusCode: 500, response: { status: 502 } }),
      statusOf({ status: 99, statusCode: 600, response: { status: 502 } }),
      statusOf({ response: null }),
      statusOf(null),
    ]).toEqual([404, 500, 502, undefined, undefined]);
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('Wed, 21 Oct 2015 07:27:30 GMT');
  const clock = (): number => now;

  it.each([
    ['Retry-After seconds in web Headers', sdkError(429, { 'retry-after': '3' }), 3000],
    ['retry-after-ms in web Headers, before Retry-After', sdkError(429, { 'retry-after-ms': '250', 'retry-after': '3' }), 250],
    ['Retry-After as an HTTP date', sdkError(503, { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }), 30_000],
    ['an HTTP date in the past', sdkError(503, { 'retry-after': 'Wed, 21 Oct 2015 07:00:00 GMT' }), 0],
    ['fractional seconds', sdkError(503, { 'retry-after': '0.5' }), 500],
    ['responseHeaders of the AI SDK, any case', apiCallError(429, true, { 'Retry-After': '7' }), 7000],
    ['response.headers of axios', axiosError(429, { 'retry-after': '2' }), 2000],
    ['an array value, its first element', { headers: { 'retry-after': ['4', '9'] } }, 4000],
    ['a number value', { headers: { 'retry-after-ms': 120 } }, 120],
    [
      'the next container when the first has nothing readable',
      { headers: { 'retry-after': 'soon' }, responseHeaders: { 'retry-after': '1' } },
      1000,
    ],
  ])('reads %s', (_name, error, expected) => {
    expect(retryAfterMs(error, clock)).toBe(expected);
  });

  it.each([
    ['no headers', new Error('x')],
    ['a negative value', { headers: { 'retry-after': '-1' } }],
    ['a value that is neither a number nor a date', { headers: { 'retry-after': 'later' } }],
    [
      'a headers object whose get throws',
      {
        headers: {
          get: () => {
            throw new Error('broken');
          },
        },
      },
    ],
    ['a primitive', 429],
  ])('finds no requested wait in %s', (_name, error) => {
    expect(retryAfterMs(error, clock)).toBeUndefined();
  });
});

describe('retry', () => {
  const context = { prompt: 'hi' };

  describe('by default', () => {
    // Every 4xx used to be retried, so a 401 with a bad key cost three calls and two backoff waits.
    it.each([
      ['401 from the OpenAI SDK', sdkError(401)],
      ['404 from axios', axiosError(404)],
      ['a non-retryable APICallError', apiCallError(400, false)],
    ])('does not retry a %s', async (_name, error) => {
      const terminal = scriptedTerminal([[throws(error)], ['ok']]);
      const run = await runStage(TextStage, {
        context,
        terminal,
        handlers: [[TextStage.Wrap, retry({ timers: manualTimers({ auto: true }) })]],
      });
      expect([run.error, terminal.calls.length]).toEqual([error, 1]);
    });

    it.each([
      ['429 from the OpenAI SDK', sdkError(429)],
      ['503 from axios', axiosError(503)],
      ['a network failure', networkError()],
    ])('retries a %s', async (_name, error) => {
      const terminal = scriptedTerminal([[throws(error)], ['ok']]);
      const run = await runStage(TextStage, {
        context,
        terminal,
        handlers: [[TextStage.Wrap, retry({ timers: manualTimers({ auto: true }) })]],
      });
      expect([run.result, terminal.calls.length]).toEqual(['ok', 2]);
    });
  });

  describe('when the error carries Retry-After', () => {
    it('waits the requested time when it is longer than the backoff', async () => {
      const timers = manualTimers({ auto: true });
      const delays: number[] = [];
      const terminal = scriptedTerminal([[throws(sdkError(429, { 'retry-after': '2' }))], ['ok']]);
      const run = await runStage(TextStage, {
        context,
        terminal,
        handlers: [[TextStage.Wrap, retry({ timers, backoff: () => 100, onRetry: (info) => delays.push(info.delayMs) })]],
      });
      expect([run.result, delays, timers.delays]).toEqual(['ok', [2000], [2000]]);
    });

    it('keeps the backoff when it is longer than the requested time, also with a custom retryOn', async () => {
      const timers = manualTimers({ auto: true });
      const terminal = scriptedTerminal([[throws(sdkError(400, { 'retry-after-ms': '5' }))], ['ok']]);
      const run = await runStage(TextStage, {
        context,
        terminal,
        handlers: [[TextStage.Wrap, retry({ timers, retryOn: () => true, backoff: () => 100 })]],
      });
      expect([run.result, timers.delays]).toEqual(['ok', [100]]);
    });

    it('measures an HTTP date on the wall clock of its timers', async () => {
      const timers = { ...manualTimers({ auto: true }), wallClock: () => Date.parse('Wed, 21 Oct 2015 07:27:55 GMT') };
      const delays: number[] = [];
      const terminal = scriptedTerminal([[throws(sdkError(503, { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }))], ['ok']]);
      await runStage(TextStage, {
        context,
        terminal,
        handlers: [[TextStage.Wrap, retry({ timers, backoff: () => 0, onRetry: (info) => delays.push(info.delayMs) })]],
      });
      expect(delays).toEqual([5000]);
    });

    it('gives up on a wait longer than maxRetryAfterMs (default 60 s) without calling onRetry', async () => {
      const quota = sdkError(429, { 'retry-after': '61' });
      const retried: number[] = [];
      const terminal = scriptedTerminal([[throws(quota)], ['ok']]);
      const run = await runStage(TextStage, {
        context,
        terminal,
        handlers: [[TextStage.Wrap, retry({ onRetry: (info) => retried.push(info.attempt) })]],
      });
      expect([run.error, terminal.calls.length, retried]).toEqual([quota, 1, []]);
    });

    it('honours any wait with maxRetryAfterMs: Infinity, and the wait stays abortable', async () => {
      const timers = manualTimers();
      const controller = new AbortController();
      const terminal = scriptedTerminal([[throws(sdkError(429, { 'retry-after': '86400' }))], ['ok']]);
      const running = runStage(TextStage, {
        context,
        terminal,
        signal: controller.signal,
        handlers: [[TextStage.Wrap, retry({ timers, maxRetryAfterMs: Infinity })]],
      });
      await settle();
      expect(timers.delays).toEqual([86_400_000]);
      controller.abort('user left');
      const run = await running;
      expect([MiddlewareError.isInstance(run.error) && run.error.code, timers.pending(), terminal.calls.length]).toEqual([
        'ERR_ABORTED',
        0,
        1,
      ]);
    });
  });

  describe('options', () => {
    it.each([-1, Number.NaN, '60'])('rejects maxRetryAfterMs %s with ERR_INVALID_OPTIONS', (value) => {
      expect(() => retry({ maxRetryAfterMs: value as number })).toThrow(
        expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', handler: 'retry', message: expect.stringContaining('maxRetryAfterMs') }),
      );
    });
  });
});
