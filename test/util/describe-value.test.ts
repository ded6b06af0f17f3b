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
