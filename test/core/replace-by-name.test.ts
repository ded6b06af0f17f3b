import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { caught, fields } from '../assertions';
import { ModelStage as Stage, OtherStage as Other } from '../fixtures';
import { pass, shape } from './registry-fixtures';

describe('MiddlewareRegistry.add', () => {
  describe('with replace: true and no id', () => {
    it("takes the place, order and id of the one handler with the new one's name", () => {
      const registry = new MiddlewareRegistry();
      registry.add(
        Stage.Wrap,
        async function* audit(_context, next) {
          yield* next();
        },
        { id: 'audit', order: -1 },
      );
      registry.add(Stage.Wrap, async function* other(_context, next) {
        yield* next();
      });
      const replacement = async function* audit(_context: unknown, next: () => AsyncGenerator<never>) {
        yield* next();
      };
      registry.add(Stage.Wrap, replacement as never, { replace: true });
      expect(registry.describe(Stage).map(({ name, id, order, position }) => ({ name, id, order, position }))).toEqual([
        { name: 'audit', id: 'audit', order: -1, position: 0 },
        { name: 'other', id: undefined, order: 0, position: 1 },
      ]);
    });

    it('registers normally when no handler of that stage and phase has the name', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Input, (context) => context, { name: 'audit' });
      registry.add(Other.Wrap, async function* audit(_context, next) {
        yield* next();
      });
      registry.add(
        Stage.Wrap,
        async function* audit(_context, next) {
          yield* next();
        },
        { replace: true },
      );
      expect(shape(registry)).toEqual(['input:audit', 'wrap:audit']);
    });

    it('refuses a name several handlers have with ERR_AMBIGUOUS_NAME, registering nothing', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Output, (result) => result, { name: 'redact' });
      registry.add(Stage.Output, (result) => result, { name: 'redact' });
      const error = caught(() => registry.add(Stage.Output, (result) => result, { name: 'redact', replace: true }));
      expect([fields(error), error.message, shape(registry)]).toEqual([
        { code: 'ERR_AMBIGUOUS_NAME', stage: 'model', phase: 'output', handler: 'redact' },
        '[ERR_AMBIGUOUS_NAME] registry.add: 2 output handlers of stage "model" are named "redact", so { replace: true } without an id cannot tell which one to replace. Give the one to replace an id and replace it by id.',
        ['output:redact', 'output:redact'],
      ]);
    });

    it('refuses a per-invoke handler with ERR_INVALID_OPTIONS, which replaces by id only', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, pass(), { name: 'audit' });
      const error = caught(() => registry.describe(Stage, { use: [[Stage.Wrap, pass(), { name: 'audit', replace: true }]] }));
      expect([fields(error), error.message.includes('a per-invoke handler replaces by id only')]).toEqual([
        { code: 'ERR_INVALID_OPTIONS', stage: 'model', phase: 'wrap', handler: 'audit' },
        true,
      ]);
    });

    it('refuses a handler without a name of its own with ERR_INVALID_OPTIONS', () => {
      const registry = new MiddlewareRegistry();
      const error = caught(() => registry.add(Stage.Output, (result) => result, { replace: true }));
      expect([fields(error), error.message.includes('options.replace needs an id, or a name')]).toEqual([
        { code: 'ERR_INVALID_OPTIONS', stage: 'model', phase: 'output', handler: 'anonymous output handler' },
        true,
      ]);
    });
  });
});
