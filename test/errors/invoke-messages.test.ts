/**
 * The errors of an invoke (MW-032): each carries its code, the stage, phase
 * and handler it is about, and a message that names them and says what to do.
 * The wording is informative in the spec; these tests pin it so that no
 * message loses the part that tells the user where and what to fix.
 */
import { describe, expect, it } from 'vitest';
import type { Culprit } from '../../src/errors/culprit';
import * as messages from '../../src/errors/invoke-messages';
import type { MiddlewareError } from '../../src/errors/middleware-error';

const wrap: Culprit = { stage: 'invokeModel', phase: 'wrap', handler: 'retry' };
const input: Culprit = { stage: 'invokeModel', phase: 'input', handler: 'addTools' };
const output: Culprit = { stage: 'invokeModel', phase: 'output', handler: 'redact' };
const terminal: Culprit = { stage: 'invokeModel', phase: 'terminal', handler: 'terminal' };

/** The fields of an error a test compares whole. */
function fields(error: MiddlewareError): Record<string, unknown> {
  return { code: error.code, stage: error.stage, phase: error.phase, handler: error.handler, message: error.message };
}

/** A proxy whose every read throws, as a hostile value a handler may return. */
const hostile = new Proxy(
  {},
  {
    get() {
      throw new Error('get trap');
    },
  },
);

describe('invalidInvokeOptions', () => {
  it('names the stage and the problem', () => {
    expect(fields(messages.invalidInvokeOptions('invokeModel', 'options.signal must be an AbortSignal, got number 1'))).toEqual({
      code: 'ERR_INVALID_OPTIONS',
      stage: 'invokeModel',
      phase: undefined,
      handler: undefined,
      message: '[ERR_INVALID_OPTIONS] Invoke of stage "invokeModel": options.signal must be an AbortSignal, got number 1.',
    });
  });
});

describe('useForAnotherStage', () => {
  it('names the handler, both stages, and says to pass handlers of the invoked stage only', () => {
    expect(fields(messages.useForAnotherStage(wrap, 'executeTool'))).toEqual({
      code: 'ERR_INVALID_OPTIONS',
      ...wrap,
      message:
        '[ERR_INVALID_OPTIONS] invoke options.use: handler "retry" targets stage "executeTool", but this invoke runs stage "invokeModel". Pass per-invoke handlers only for the stage being invoked.',
    });
  });
});

describe('stateNotDraftable', () => {
  it('names the stage and what the state binding returned, and says which values immer drafts', () => {
    expect(fields(messages.stateNotDraftable('invokeModel', new Date(0)))).toEqual({
      code: 'ERR_INVALID_STATE',
      stage: 'invokeModel',
      phase: 'terminal',
      handler: undefined,
      message:
        '[ERR_INVALID_STATE] Stage "invokeModel": state.get() returned an instance of Date, which immer cannot draft. Keep the state in a plain object, array, Map or Set.',
    });
  });
});

describe('stateCyclic', () => {
  it('names the stage and the path where the cycle closes, and says to link by id', () => {
    expect(fields(messages.stateCyclic('invokeModel', 'a.back.a'))).toEqual({
      code: 'ERR_INVALID_STATE',
      stage: 'invokeModel',
      phase: 'terminal',
      handler: undefined,
      message:
        '[ERR_INVALID_STATE] Stage "invokeModel": state.get() returned a value with a reference cycle: the value at a.back.a is one that contains it. A cyclic state cannot be written back consistently (a change would show through one path and not the other); keep each object in the state at one place, and link by id instead.',
    });
  });
});

describe('notAsyncIterable', () => {
  it.each([
    [
      'a Wrap handler returning a promise is told it looks like a plain async function',
      wrap,
      Promise.resolve(1),
      'Wrap handler "retry" of stage "invokeModel" returned a promise, not an async iterable. It looks like a plain async function: write it as `async function*` and forward the inner events with `yield* next()`.',
    ],
    [
      'the terminal returning a promise is told to yield its events',
      terminal,
      Promise.resolve(1),
      'The terminal of stage "invokeModel" returned a promise, not an async iterable. It looks like a plain async function: write it as `async function*` and yield its events.',
    ],
    [
      'the terminal returning an array is told a synchronous iterable cannot stream',
      terminal,
      [1, 2],
      'The terminal of stage "invokeModel" returned an array of length 2, not an async iterable. A synchronous iterable (an array or a `function*` generator) cannot stream: write it as `async function*`.',
    ],
    [
      'a Wrap handler returning a number gets the general hint',
      wrap,
      42,
      'Wrap handler "retry" of stage "invokeModel" returned number 42, not an async iterable. Write it as `async function*` and forward the inner events with `yield* next()`.',
    ],
    [
      'the terminal returning null gets the general hint',
      terminal,
      null,
      'The terminal of stage "invokeModel" returned null, not an async iterable. Write it as `async function*` and yield its events.',
    ],
    [
      'a Wrap handler returning a plain object gets the general hint',
      wrap,
      { events: [] },
      'Wrap handler "retry" of stage "invokeModel" returned a plain object, not an async iterable. Write it as `async function*` and forward the inner events with `yield* next()`.',
    ],
    [
      'a Wrap handler returning a value that cannot be inspected gets the general hint',
      wrap,
      hostile,
      'Wrap handler "retry" of stage "invokeModel" returned an object that cannot be inspected (a proxy, or a throwing getter), not an async iterable. Write it as `async function*` and forward the inner events with `yield* next()`.',
    ],
  ])('%s', (_label, culprit, produced, message) => {
    expect(fields(messages.notAsyncIterable(culprit, produced))).toEqual({
      code: 'ERR_INVALID_HANDLER',
      ...culprit,
      message: `[ERR_INVALID_HANDLER] ${message}`,
    });
  });
});

describe('notAFunction', () => {
  it.each([
    [wrap, 'Wrap handler "retry" of stage "invokeModel" must be a function, got the string "retry".'],
    [terminal, 'The terminal of stage "invokeModel" must be a function, got the string "retry".'],
  ])('names the %o and what it got', (culprit, message) => {
    expect(fields(messages.notAFunction(culprit, 'retry'))).toEqual({
      code: 'ERR_INVALID_HANDLER',
      ...culprit,
      message: `[ERR_INVALID_HANDLER] ${message}`,
    });
  });
});

describe('inputContract', () => {
  it('names the Input handler and asks whether it forgot to return the context', () => {
    expect(fields(messages.inputContract(input, undefined))).toEqual({
      code: 'ERR_INPUT_CONTRACT',
      ...input,
      message:
        '[ERR_INPUT_CONTRACT] Input handler "addTools" of stage "invokeModel" returned undefined. An Input handler must return the context (the one it received, or a new one). Did you forget to `return context`?',
    });
  });
});

describe('outputContract', () => {
  it('names the Output handler and says what it may return', () => {
    expect(fields(messages.outputContract(output, { text: 'hi' }))).toEqual({
      code: 'ERR_OUTPUT_CONTRACT',
      ...output,
      message:
        '[ERR_OUTPUT_CONTRACT] Output handler "redact" of stage "invokeModel" returned a plain object, not a MiddlewareResult. Return the result it received, or `result.replace(value)` / `result.update(recipe)`.',
    });
  });
});

describe('noResult', () => {
  it.each([
    [
      'a chain that yielded nothing, with no Wrap handler',
      { present: false },
      undefined,
      'it yielded no event at all (outermost layer: the terminal)',
    ],
    [
      'a chain whose last event fails the guard, under a Wrap handler',
      { present: true, value: 'delta' },
      'retry',
      'its last event (the string "delta") fails the stage\'s isResult guard (outermost layer: Wrap handler "retry")',
    ],
  ])('names the stage, the outermost layer and what went wrong: %s', (_label, lastEvent, outermost, detail) => {
    expect(fields(messages.noResult('invokeModel', lastEvent, outermost))).toEqual({
      code: 'ERR_NO_RESULT',
      stage: 'invokeModel',
      phase: undefined,
      handler: undefined,
      message: `[ERR_NO_RESULT] The chain of stage "invokeModel" did not yield a result event: ${detail}. Every Wrap handler must forward the events of next() (\`yield* next()\`) or yield a result of its own, and the terminal must end with a result event.`,
    });
  });
});

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
