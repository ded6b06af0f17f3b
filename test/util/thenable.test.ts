import { describe, expect, it } from 'vitest';
import { isAwaitable, isThenable } from '../../src/util/thenable';

describe('isThenable', () => {
  it.each([
    ['a promise', Promise.resolve(1), true],
    ['an object with a then method', { then: () => undefined }, true],
    ['an object whose then is not a function', { then: 1 }, false],
    ['null', null, false],
    ['a function with a then method', Object.assign(() => undefined, { then: () => undefined }), false],
    ['a string', 'then', false],
  ])('tells whether %s must be awaited', (_label, value, expected) => {
    expect(isThenable(value)).toBe(expected);
  });
});

describe('isAwaitable', () => {
  it.each([
    ['a promise', Promise.resolve(1), true],
    ['an object with a then method', { then: () => undefined }, true],
    ['a function with a then method', Object.assign(() => undefined, { then: () => undefined }), true],
    ['a function without a then method', () => undefined, false],
    ['an object whose then is not a function', { then: 1 }, false],
    ['null', null, false],
    ['undefined', undefined, false],
    ['a string', 'then', false],
  ])('tells whether an async generator would await %s it yields', (_label, value, expected) => {
    expect(isAwaitable(value)).toBe(expected);
  });
});
