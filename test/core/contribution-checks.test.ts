/**
 * The checks of contribution keys and of `provide` (MW-053 – MW-055): what
 * is rejected, and what the errors say.
 */
import { describe, expect, it } from 'vitest';
import { createContributionKey, MiddlewareRegistry, type ContributionKey, type Middleware } from '../../src/core/index';
import { caught, fields } from '../assertions';
import { ModelStage as Stage } from '../fixtures';

/** A bundle named `name` that provides each value under `key`. */
function providing<TValue>(name: string, key: ContributionKey<TValue>, ...values: TValue[]): Middleware {
  return {
    name,
    setup(registrar) {
      for (const value of values) registrar.provide(key, value);
    },
  };
}

const Named = createContributionKey<string>('test.named', { identify: (value) => value, stage: Stage });

describe('createContributionKey', () => {
  describe('with invalid arguments', () => {
    it.each([
      ['an empty name', () => createContributionKey(''), 'the name must be a non-empty string, got'],
      ['options that are not an object', () => createContributionKey('k', 'x' as never), 'options must be { identify?, stage? }, got'],
      [
        'an identify that is not a function',
        () => createContributionKey('k', { identify: 'id' as never }),
        'options.identify must be a function (value) => id, got',
      ],
      [
        'a stage that is not a stage',
        () => createContributionKey('k', { stage: { ...Stage } as never }),
        'options.stage must be a stage from createStage(), got',
      ],
    ])('names the problem with %s', (_label, action, problem) => {
      expect(caught(action).message).toContain(`createContributionKey(name, options?): ${problem}`);
    });
  });
});

describe('MiddlewareRegistry.contributions', () => {
  describe('with something that is not a key', () => {
    it.each([
      ['null', null],
      ['a name that is an array', { name: ['test.named'], identify: undefined }],
      ['an identify that is not a function', { name: 'test.named', identify: 'id' }],
    ])('throws ERR_INVALID_OPTIONS for %s, naming the call', (_label, key) => {
      const error = caught(() => new MiddlewareRegistry().contributions(key as never));
      expect([fields(error), error.message.includes('registry.contributions(key) expects a key from createContributionKey()')]).toEqual([
        { code: 'ERR_INVALID_OPTIONS', stage: undefined, phase: 'register', handler: undefined },
        true,
      ]);
    });
  });

  describe('after an ancestor provided, later, an id the registry already has', () => {
    it('says the first value is in a parent registry', () => {
      const parent = new MiddlewareRegistry();
      const child = parent.child();
      child.use(providing('local', Named, 'a'));
      parent.use(providing('late', Named, 'a'));
      expect(caught(() => child.contributions(Named)).message).toContain(
        'Bundle "local" provides "a" under key "test.named", and bundle "late" already provides a value with that id in a parent registry',
      );
    });
  });
});

describe('Registrar.provide', () => {
  describe('with an id given twice in one registry', () => {
    it('says the first value is in the same registry', () => {
      const registry = new MiddlewareRegistry();
      registry.use(providing('first', Named, 'a'));
      expect(caught(() => registry.use(providing('second', Named, 'a'))).message).toContain(
        'bundle "first" already provides a value with that id in the same registry',
      );
    });
  });

  describe('with an identify that gives no id', () => {
    it.each([
      ['an empty string', ''],
      ['a number', 7],
    ])('throws ERR_INVALID_OPTIONS for %s, naming the bundle, also for a key without a stage', (_label, id) => {
      const Unstaged = createContributionKey<unknown>('test.unstaged', { identify: () => id as string });
      const registry = new MiddlewareRegistry();
      const error = caught(() => registry.use(providing('kit', Unstaged, 'value')));
      expect([
        fields(error),
        error.message.includes('bundle "kit": registrar.provide(key, value)'),
        registry.contributions(Unstaged),
      ]).toEqual([{ code: 'ERR_INVALID_OPTIONS', stage: undefined, phase: 'register', handler: undefined }, true, []]);
    });
  });
});
