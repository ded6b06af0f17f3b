import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, createContributionKey, type ContributionKey, type Middleware } from '../../src/core/index';
import { caught, fields } from '../assertions';
import { ModelStage as Stage, echo as terminal, passThrough } from '../fixtures';

interface Item {
  readonly id: string;
  readonly label?: string;
}

const Items = createContributionKey<Item>('test.items', { identify: (item) => item.id, stage: Stage });

/** A bundle named `name` that provides each item under {@link Items}. */
function providing(name: string, ...items: Item[]): Middleware {
  return {
    name,
    setup(registrar) {
      for (const item of items) registrar.provide(Items, item);
    },
  };
}

const ids = (registry: MiddlewareRegistry): (string | undefined)[] => registry.contributions(Items).map((entry) => entry.id);

describe('createContributionKey', () => {
  describe('with valid options', () => {
    it('returns a frozen key with its name, identify and stage', () => {
      const identify = (item: Item): string => item.id;
      const key = createContributionKey('test.k', { identify, stage: Stage });
      expect([key, Object.isFrozen(key)]).toEqual([{ name: 'test.k', identify, stage: Stage }, true]);
    });

    it('leaves identify and stage undefined when they are not given', () => {
      expect(createContributionKey('test.bare')).toEqual({ name: 'test.bare', identify: undefined, stage: undefined });
    });
  });

  describe('with invalid arguments', () => {
    it.each([
      ['an empty name', () => createContributionKey('')],
      ['a name that is not a string', () => createContributionKey(7 as unknown as string)],
      ['options that are not an object', () => createContributionKey('k', 'x' as never)],
      ['an identify that is not a function', () => createContributionKey('k', { identify: 'id' as never })],
      ['a stage that is not a stage', () => createContributionKey('k', { stage: { ...Stage } as never })],
    ])('throws ERR_INVALID_OPTIONS for %s', (_label, action) => {
      expect(fields(caught(action))).toEqual({ code: 'ERR_INVALID_OPTIONS', stage: undefined, phase: 'register', handler: undefined });
    });
  });
});

describe('Registrar.provide', () => {
  describe('with an identify that throws', () => {
    it('passes the very error through and leaves nothing of the bundle behind', () => {
      const registry = new MiddlewareRegistry();
      const broken = new Error('no id here');
      const Throwing = createContributionKey<Item>('test.throwing', {
        identify: () => {
          throw broken;
        },
      });
      let thrown: unknown;
      try {
        registry.use({
          name: 'kit',
          setup(registrar) {
            registrar.add(Stage.Wrap, passThrough);
            registrar.provide(Throwing, { id: 'a' });
          },
        });
      } catch (error) {
        thrown = error;
      }
      expect([thrown, registry.describe(Stage), registry.contributions(Throwing)]).toEqual([broken, [], []]);
      expect(thrown).toBe(broken);
    });
  });

  describe('with a duplicate id', () => {
    it('names both bundles and says where the first one is', () => {
      const registry = new MiddlewareRegistry();
      registry.use(providing('first', { id: 'a' }));
      const error = caught(() => registry.child().use(providing('second', { id: 'a' })));
      expect([fields(error), error.message]).toEqual([
        { code: 'ERR_DUPLICATE_ID', stage: 'model', phase: 'register', handler: undefined },
        '[ERR_DUPLICATE_ID] Bundle "second" provides "a" under key "test.items", and bundle "first" already provides a value with that id in a parent registry. Each value of a key needs its own id within one chain of scopes: rename one, or use only one of the bundles.',
      ]);
    });
  });

  describe('in a bundle registered on a registry that invokes', () => {
    it('changes nothing the invoke runs', async () => {
      const registry = new MiddlewareRegistry();
      registry.use(providing('kit', { id: 'a' }));
      await expect(registry.run(Stage, { prompt: 'hi' }, terminal)).resolves.toBe('hi');
      expect(registry.describe(Stage)).toEqual([]);
    });
  });

  describe('called after setup returned', () => {
    it('still belongs to the bundle, so the bundle disposer removes it', () => {
      const registry = new MiddlewareRegistry();
      let later: ((item: Item) => void) | undefined;
      const dispose = registry.use({ name: 'late', setup: (registrar) => void (later = (item) => void registrar.provide(Items, item)) });
      later?.({ id: 'z' });
      const before = ids(registry);
      dispose();
      expect([before, ids(registry)]).toEqual([['z'], []]);
    });
  });
});

describe('MiddlewareRegistry.contributions', () => {
  describe('what it hands out', () => {
    it('is a frozen array of frozen entries that keeps each value by reference', () => {
      const registry = new MiddlewareRegistry();
      const item = { id: 'a', label: 'kept as given' };
      registry.use(providing('kit', item));
      const entries = registry.contributions(Items);
      expect([Object.isFrozen(entries), Object.isFrozen(entries[0]), Object.isFrozen(item)]).toEqual([true, true, false]);
      expect(entries[0]?.value).toBe(item);
      expect(() => (entries as unknown as unknown[]).push({ id: 'b' })).toThrow(TypeError);
      expect(ids(registry)).toEqual(['a']);
    });
  });

  describe('after a change anywhere in the ancestry', () => {
    it('sees what the parent provided or removed later', () => {
      const parent = new MiddlewareRegistry();
      const child = parent.child();
      child.use(providing('local', { id: 'c' }));
      const first = ids(child);
      const dispose = parent.use(providing('shared', { id: 'p' }));
      const second = ids(child);
      dispose();
      expect([first, second, ids(child)]).toEqual([['c'], ['p', 'c'], ['c']]);
    });
  });

  describe('with something that is not a key', () => {
    it('throws ERR_INVALID_OPTIONS', () => {
      expect(fields(caught(() => new MiddlewareRegistry().contributions({ name: '' } as ContributionKey<Item>)))).toEqual({
        code: 'ERR_INVALID_OPTIONS',
        stage: undefined,
        phase: 'register',
        handler: undefined,
      });
    });
  });

  describe('from a parent', () => {
    it('never lists what a child provided', () => {
      const parent = new MiddlewareRegistry();
      parent.child().use(providing('local', { id: 'c' }));
      expect(ids(parent)).toEqual([]);
    });
  });
});

describe('MiddlewareRegistry.explain', () => {
  describe('with a key shown with the stage but no value in scope', () => {
    it('draws the chain alone', () => {
      const registry = new MiddlewareRegistry();
      const dispose = registry.use(providing('kit', { id: 'a' }));
      dispose();
      expect(registry.explain(Stage)).toEqual('stage "model"\n└─ terminal');
    });
  });
});
