/**
 * `explain()` (MW-051): the note on the first Output line and the lists of
 * constraint ids in a label.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { ModelStage as Stage, passThrough } from '../fixtures';

describe('MiddlewareRegistry.explain', () => {
  describe('with one Input and one Output handler', () => {
    it('adds no "transforms last" note: there is a single Output handler', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Input, (context) => context, { name: 'prepare' });
      registry.add(Stage.Output, (result) => result, { name: 'format' });
      expect(registry.explain(Stage)).toBe(['stage "model"', '├─ input   1. prepare', '├─ output  1. format', '└─ terminal'].join('\n'));
    });
  });

  describe('with several ids in before and after', () => {
    it('joins them with a comma and a space', () => {
      const registry = new MiddlewareRegistry({ onWarning: () => undefined });
      registry.add(Stage.Wrap, passThrough, { name: 'middle', before: ['c', 'd'], after: ['a', 'b'] });
      expect(registry.explain(Stage, {})).toBe(
        ['stage "model"', '└─ wrap    1. middle  [before c, d; after a, b]', '   └─ terminal'].join('\n'),
      );
    });
  });
});
