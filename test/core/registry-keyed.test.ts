import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { caught, fields } from '../assertions';
import { ModelStage as Stage, OtherStage as Other } from '../fixtures';
import { shape, tracing } from './registry-fixtures';

describe('MiddlewareRegistry', () => {
  describe('keyed registration', () => {
    it('rejects a second registration of an id with ERR_DUPLICATE_ID', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, tracing([], 'a'), { id: 'retry', name: 'a' });
      const error = caught(() => registry.add(Other.Input, (context) => context, { id: 'retry', name: 'b' }));
      expect(fields(error)).toEqual({ code: 'ERR_DUPLICATE_ID', stage: 'other', phase: 'input', handler: 'b' });
      expect(error.message).toBe(
        '[ERR_DUPLICATE_ID] registry.add: the id "retry" is already registered, so input handler "b" of stage "other" cannot take it. Pass { replace: true } to put this handler in its place, or choose another id.',
      );
      expect([shape(registry), shape(registry, Other)]).toEqual([['wrap:a'], []]);
    });

    it('lets replace take the old registration position and order', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, tracing([], 'a'), { name: 'a' });
      registry.add(Stage.Wrap, tracing([], 'old'), { name: 'old', id: 'x', order: 1 });
      registry.add(Stage.Wrap, tracing([], 'b'), { name: 'b', order: 1 });
      registry.add(Stage.Wrap, tracing([], 'new'), { name: 'new', id: 'x', replace: true });
      expect(registry.describe(Stage).map((entry) => [entry.name, entry.order])).toEqual([
        ['a', 0],
        ['new', 1],
        ['b', 1],
      ]);
      expect(registry.remove('x')).toBe(true);
      expect(shape(registry)).toEqual(['wrap:a', 'wrap:b']);
    });

    it('lets replace move an id to another stage and phase: the old registration leaves its own stage', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, tracing([], 'old'), { name: 'old', id: 'x' });
      registry.add(Stage.Wrap, tracing([], 'b'), { name: 'b' });
      registry.add(Other.Input, (context) => context, { name: 'moved', id: 'x', replace: true });
      expect([shape(registry), shape(registry, Other)]).toEqual([['wrap:b'], ['input:moved']]);
      expect(registry.remove('x')).toBe(true);
      expect(shape(registry, Other)).toEqual([]);
    });

    it('lets replace give its own order', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, tracing([], 'old'), { name: 'old', id: 'x' });
      registry.add(Stage.Wrap, tracing([], 'b'), { name: 'b' });
      registry.add(Stage.Wrap, tracing([], 'new'), { name: 'new', id: 'x', replace: true, order: 2 });
      expect(shape(registry)).toEqual(['wrap:b', 'wrap:new']);
    });

    it('treats replace of an id not yet registered as a plain add', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, tracing([], 'n'), { name: 'n', id: 'x', replace: true });
      expect(shape(registry)).toEqual(['wrap:n']);
    });

    it('makes the old disposer of a replaced registration harmless', () => {
      const registry = new MiddlewareRegistry();
      const disposeOld = registry.add(Stage.Wrap, tracing([], 'old'), { name: 'old', id: 'x' });
      registry.add(Stage.Wrap, tracing([], 'new'), { name: 'new', id: 'x', replace: true });
      disposeOld();
      expect(shape(registry)).toEqual(['wrap:new']);
    });
  });
});
