import { describe, expect, it } from 'vitest';
import { isAbortSignal } from '../../src/util/abort-signal';

describe('isAbortSignal', () => {
  it.each([
    ['an AbortSignal', new AbortController().signal, true],
    ['a string', 'junk', false],
    ['null', null, false],
    ['an object with aborted only', { aborted: false }, false],
    ['an object without removeEventListener', { aborted: false, addEventListener: (): void => undefined }, false],
    ['an object without addEventListener', { aborted: false, removeEventListener: (): void => undefined }, false],
    [
      'an object whose aborted is not a boolean',
      { aborted: 'no', addEventListener: (): void => undefined, removeEventListener: (): void => undefined },
      false,
    ],
    [
      'a lookalike object of another realm',
      { aborted: true, addEventListener: (): void => undefined, removeEventListener: (): void => undefined },
      true,
    ],
    [
      'a function carrying the members',
      Object.assign((): void => undefined, {
        aborted: false,
        addEventListener: (): void => undefined,
        removeEventListener: (): void => undefined,
      }),
      false,
    ],
  ])('tells whether %s can serve as a signal', (_label, value, expected) => {
    expect(isAbortSignal(value)).toBe(expected);
  });
});
