/**
 * Constraints between levels (MW-042, MW-046): only those between handlers of
 * one stage and phase are checked against the nesting.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { ModelStage as Stage, passThrough } from '../fixtures';

describe('MiddlewareRegistry.child', () => {
  describe('a constraint naming a parent id on the same stage but another phase', () => {
    it('is ignored instead of reported as a conflict with the nesting', () => {
      const parent = new MiddlewareRegistry();
      parent.add(Stage.Input, (context) => context, { name: 'prepare', id: 'p' });
      const child = parent.child();
      child.add(Stage.Wrap, passThrough, { name: 'constrained', before: ['p'] });
      expect(child.describe(Stage).map((entry) => `${entry.phase}:${entry.name}@${entry.depth}`)).toEqual([
        'input:prepare@1',
        'wrap:constrained@0',
      ]);
    });
  });
});
