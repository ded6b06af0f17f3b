import { describe, expectTypeOf, it } from 'vitest';
import { MiddlewareRegistry, createContributionKey, type Contribution } from '../../src/core/index';

interface Item {
  readonly id: string;
}

const Items = createContributionKey<Item>('test.items', { identify: (item) => item.id });

describe('contribution keys', () => {
  it('type the values a bundle provides and contributions() returns', () => {
    const registry = new MiddlewareRegistry();
    registry.use({
      name: 'kit',
      setup(registrar) {
        registrar.provide(Items, { id: 'a' });
        // @ts-expect-error: the key's values are items, not strings
        registrar.provide(Items, 'a');
      },
    });
    expectTypeOf(registry.contributions(Items)).toEqualTypeOf<readonly Contribution<Item>[]>();
  });

  it('type identify with the key value', () => {
    // @ts-expect-error: identify must return a string
    createContributionKey<Item>('test.bad', { identify: (item) => item.id.length });
  });
});
