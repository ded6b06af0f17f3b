import { describe, expect, it } from 'vitest';
import { jsonText } from '../../../src/agent/values/json-value';

describe('jsonText', () => {
  describe('a value JSON writes', () => {
    it.each<[string, unknown, string]>([
      ['an object', { city: 'Paris', days: [1, 2] }, '{"city":"Paris","days":[1,2]}'],
      ['a string', 'x', '"x"'],
      ['null', null, 'null'],
      ['an object with an undefined key, leaving the key out', { a: undefined, b: 1 }, '{"b":1}'],
    ])('writes %s as JSON.stringify does', (_label, value, text) => {
      expect(jsonText(value)).toEqual(text);
    });
  });

  describe('a value JSON writes nothing for', () => {
    it.each<[string, unknown]>([
      ['undefined', undefined],
      ['a function', () => 1],
      ['a symbol', Symbol('s')],
    ])('writes null for %s', (_label, value) => {
      expect(jsonText(value)).toEqual('null');
    });
  });
});
