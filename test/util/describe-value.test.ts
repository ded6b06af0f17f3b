import { describe, expect, it } from 'vitest';
import { describeValue, safeString } from '../../src/util/describe-value';

describe('describeValue', () => {
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const throwingThen = Object.defineProperty({}, 'then', {
    get() {
      throw new Error('then getter');
    },
  });
  const throwingName = Object.defineProperty(function named() {}, 'name', {
    get() {
      throw new Error('name getter');
    },
  });
  const hostileProxy = new Proxy(
    {},
    {
      get() {
        throw new Error('get trap');
      },
    },
  );

  it.each([
    ['a revoked proxy', revoked.proxy, 'an object that cannot be inspected (a proxy, or a throwing getter)'],
    ['an object whose then getter throws', throwingThen, 'an object that cannot be inspected (a proxy, or a throwing getter)'],
    ['a function whose name getter throws', throwingName, 'a function that cannot be inspected'],
    ['a proxy whose get trap throws', hostileProxy, 'an object that cannot be inspected (a proxy, or a throwing getter)'],
    ['an object without a prototype', Object.create(null), 'a plain object'],
    ['a symbol', Symbol('s'), 'symbol Symbol(s)'],
  ])('never throws, describing %s', (_label, value, described) => {
    expect(describeValue(value)).toBe(described);
  });
});

describe('describeValue of an ordinary value', () => {
  function* numbers(): Generator<number> {
    yield 1;
  }
  const AnonymousClass = [class {}][0] as new () => object;
  it.each([
    ['null', null, 'null'],
    ['undefined', undefined, 'undefined'],
    ['a named function', function check() {}, 'a function (check)'],
    ['an anonymous function', [() => 1][0], 'a function'],
    ['a short string', 'retry', 'the string "retry"'],
    ['a string of 40 characters', 'x'.repeat(40), `the string "${'x'.repeat(40)}"`],
    ['a string of 41 characters, cut at 40', `${'x'.repeat(40)}y`, `the string "${'x'.repeat(40)}…"`],
    ['an array', [1, 2, 3], 'an array of length 3'],
    ['a promise', Promise.resolve(1), 'a promise'],
    ['a thenable', { then: () => undefined }, 'a promise'],
    ['a generator object', numbers(), 'a synchronous iterator (a `function*` generator?)'],
    ['an iterator that is not iterable', { next: () => ({ done: true }) }, 'a plain object'],
    ['an iterable without next', { [Symbol.iterator]: () => [][Symbol.iterator]() }, 'a plain object'],
    ['a class instance', new Map(), 'an instance of Map'],
    ['an instance of an anonymous class', new AnonymousClass(), 'a plain object'],
    ['a plain object', { a: 1 }, 'a plain object'],
    ['a number', 42, 'number 42'],
    ['a bigint', 7n, 'bigint 7'],
    ['a boolean', false, 'boolean false'],
  ])('describes %s', (_label, value, described) => {
    expect(describeValue(value)).toBe(described);
  });
});

describe('safeString', () => {
  it.each([
    ['a number', 42, '42'],
    ['an object without a prototype', Object.create(null), 'a plain object'],
    [
      'an object whose toString throws',
      {
        toString: () => {
          throw new Error('no');
        },
      },
      'a plain object',
    ],
  ])('converts %s, or describes it when it cannot be converted', (_label, value, text) => {
    expect(safeString(value)).toBe(text);
  });
});
