import { describe, expect, it } from 'vitest';
import { isNonEmptyString } from '../../src/util/non-empty-string';

describe('isNonEmptyString', () => {
  it.each([
    ['a string of one character', 'a', true],
    ['a string of blanks', ' ', true],
    ['the empty string', '', false],
    ['a String object', new String('a'), false],
    ['a number', 1, false],
    ['undefined', undefined, false],
    ['null', null, false],
    ['an array of one string', ['a'], false],
  ])('tells whether %s names something', (_label, value, expected) => {
    expect(isNonEmptyString(value)).toBe(expected);
  });
});
