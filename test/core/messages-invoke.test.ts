/**
 * The errors of an invoke (MW-032): each carries its code, the stage, phase
 * and handler it is about, and a message that names them and says what to do.
 * The wording is informative in the spec; these tests pin it so that no
 * message loses the part that tells the user where and what to fix.
 */
import { describe, expect, it } from 'vitest';
import * as messages from '../../src/core/messages';
import { fields, hostile, input, output, terminal, wrap } from './messages-fixtures';

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
  ])('%s', (_label, site, produced, message) => {
    expect(fields(messages.notAsyncIterable(site, produced))).toEqual({
      code: 'ERR_INVALID_HANDLER',
      ...site,
      message: `[ERR_INVALID_HANDLER] ${message}`,
    });
  });
});

describe('notAFunction', () => {
  it.each([
    [wrap, 'Wrap handler "retry" of stage "invokeModel" must be a function, got the string "retry".'],
    [terminal, 'The terminal of stage "invokeModel" must be a function, got the string "retry".'],
  ])('names the %o and what it got', (site, message) => {
    expect(fields(messages.notAFunction(site, 'retry'))).toEqual({
      code: 'ERR_INVALID_HANDLER',
      ...site,
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
