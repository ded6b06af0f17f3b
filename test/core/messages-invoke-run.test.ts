/**
 * The errors an invoke raises while it runs (MW-032): invalid events, aborts,
 * misuse of `next`, instrumentations, the next policy and schema failures. Like
 * the errors of its set-up (messages-invoke.test.ts), each is pinned whole.
 */
import { describe, expect, it } from 'vitest';
import * as messages from '../../src/core/messages';
import { fields, wrap } from './messages-fixtures';

describe('invalidEvent', () => {
  it('names the stage and says where to look', () => {
    expect(fields(messages.invalidEvent('invokeModel'))).toEqual({
      code: 'ERR_INVALID_EVENT',
      stage: 'invokeModel',
      phase: undefined,
      handler: undefined,
      message:
        '[ERR_INVALID_EVENT] A layer of stage "invokeModel" yielded undefined, which is never a valid event. Look for a bare `yield` or a `yield` of a missing value in the Wrap handlers and the terminal.',
    });
  });
});

describe('aborted', () => {
  const throwingMessage = Object.defineProperty(new Error('hidden'), 'message', {
    get() {
      throw new Error('message getter');
    },
  });
  it.each([
    ['a string reason is quoted', 'user left', ': user left'],
    ['an error reason gives its message', new Error('deadline passed'), ': deadline passed'],
    ['an error whose message is not a string gives nothing', Object.assign(new Error(), { message: 7 }), ''],
    ['an error whose message getter throws gives nothing', throwingMessage, ''],
    ['an error of another realm, which is no Error here, gives its message', { name: 'AbortError', message: 'stopped' }, ': stopped'],
    ['a reason that is neither gives nothing', 42, ''],
    ['a null reason gives nothing', null, ''],
    ['no reason gives nothing', undefined, ''],
  ])('names the stage and keeps the reason as the cause: %s', (_label, reason, text) => {
    const error = messages.aborted('invokeModel', reason);
    expect({ ...fields(error), hasCause: 'cause' in error, cause: error.cause }).toEqual({
      code: 'ERR_ABORTED',
      stage: 'invokeModel',
      phase: undefined,
      handler: undefined,
      message: `[ERR_ABORTED] The invoke of stage "invokeModel" was aborted${text}. The abort reason is the cause.`,
      hasCause: reason !== undefined,
      cause: reason,
    });
  });
});

describe('nextAfterSettle', () => {
  it('names the handler and says not to keep next() for later', () => {
    expect(fields(messages.nextAfterSettle(wrap))).toEqual({
      code: 'ERR_NEXT_AFTER_SETTLE',
      ...wrap,
      message:
        '[ERR_NEXT_AFTER_SETTLE] Wrap handler "retry" of stage "invokeModel" called next() after the invoke had settled. Call next() only while the handler runs; do not keep it for later (in a timer or a stored callback).',
    });
  });
});

describe('invalidNextOptions', () => {
  it('names the handler and the problem, and says what next() takes', () => {
    expect(fields(messages.invalidNextOptions(wrap, 'options.signal of number 1'))).toEqual({
      code: 'ERR_INVALID_OPTIONS',
      ...wrap,
      message:
        '[ERR_INVALID_OPTIONS] Wrap handler "retry" of stage "invokeModel" called next() with options.signal of number 1. Pass next(context, { signal }) with an AbortSignal, or leave the options out.',
    });
  });
});

describe('invalidInstrumentation', () => {
  it.each([
    [
      'invoke() returning a string',
      'invoke' as const,
      undefined,
      'Instrumentation "tracing" returned the string "x" from invoke() in an invoke of stage "invokeModel", but it must return undefined or an observer object (whose hooks, when present, are functions). Return an object with the hooks it needs, or undefined to skip the invoke.',
    ],
    [
      'layer() returning a string for a Wrap handler',
      'layer' as const,
      'Wrap handler "retry"',
      'Instrumentation "tracing" returned the string "x" from layer() for Wrap handler "retry" in an invoke of stage "invokeModel", but it must return an async generator (next, return and Symbol.asyncIterator). Wrap the events in an `async function*` that does `yield* events`.',
    ],
  ])('names the instrumentation, the hook and the stage: %s', (_label, hook, layer, message) => {
    expect(fields(messages.invalidInstrumentation('invokeModel', 'tracing', hook, 'x', layer))).toEqual({
      code: 'ERR_INVALID_HANDLER',
      stage: 'invokeModel',
      phase: undefined,
      handler: 'tracing',
      message: `[ERR_INVALID_HANDLER] ${message}`,
    });
  });
});

describe('nextPolicy', () => {
  it.each([
    ['once', 0, "next: 'once' and must call next() exactly once, but called it 0 times"],
    ['once', 2, "next: 'once' and must call next() exactly once, but called it 2 times"],
    ['at-most-once', 2, "next: 'at-most-once' and must call next() at most once, but called it 2 times"],
    ['at-most-once', 1, "next: 'at-most-once' and must call next() at most once, but called it 1 time"],
  ])("names the handler, policy %s and the %i calls, and offers next: 'many'", (policy, calls, text) => {
    expect(fields(messages.nextPolicy(wrap, policy, calls))).toEqual({
      code: 'ERR_NEXT_POLICY',
      ...wrap,
      message: `[ERR_NEXT_POLICY] Wrap handler "retry" of stage "invokeModel" is registered with ${text}. Change the handler, or register it with next: 'many'.`,
    });
  });
});

describe('schemaFailed', () => {
  it.each([
    [
      'context' as const,
      'ERR_CONTEXT_INVALID',
      'input',
      "The context of stage \"invokeModel\" failed the stage's context schema after the Input phase. The schema's issues are in the cause; fix the caller's context or the Input handler that produced it.",
    ],
    [
      'result' as const,
      'ERR_RESULT_INVALID',
      'output',
      'The result of stage "invokeModel" failed the stage\'s result schema after the Output phase. The schema\'s issues are in the cause; fix the terminal or the Output handler that produced it.',
    ],
  ])('names the stage and the phase the %s failed after, with the issues as the cause', (which, code, phase, message) => {
    const issues = { issues: [{ path: ['text'], message: 'Required' }] };
    const error = messages.schemaFailed('invokeModel', which, issues);
    expect({ ...fields(error), cause: error.cause }).toEqual({
      code,
      stage: 'invokeModel',
      phase,
      handler: undefined,
      message: `[${code}] ${message}`,
      cause: issues,
    });
  });
});
