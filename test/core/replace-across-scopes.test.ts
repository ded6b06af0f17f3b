/**
 * Replacement across scopes (MW-047): what a chain resolved from the
 * replacing scope sees of the replaced id.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry } from '../../src/core/index';
import { caught, fields } from '../assertions';
import { ModelStage as Stage, OtherStage as Other, passThrough } from '../fixtures';

const names = (registry: MiddlewareRegistry): string[] => registry.describe(Stage).map((entry) => `${entry.phase}:${entry.name}`);

describe('MiddlewareRegistry.child', () => {
  describe('a constraint naming an id the child replaced on another stage', () => {
    it('is ignored: the hidden parent registration is gone, so it cannot conflict with the nesting', () => {
      const parent = new MiddlewareRegistry();
      parent.add(Stage.Wrap, passThrough, { name: 'hidden', id: 'x' });
      const child = parent.child();
      child.add(Other.Wrap, passThrough, { name: 'replacement', id: 'x', replace: true });
      child.add(Stage.Wrap, passThrough, { name: 'constrained', before: ['x'] });
      expect([names(child), names(parent)]).toEqual([['wrap:constrained'], ['wrap:hidden']]);
    });

    it('is ignored when a grandchild adds it and the replacement sits between', () => {
      const root = new MiddlewareRegistry();
      root.add(Stage.Wrap, passThrough, { name: 'hidden', id: 'x' });
      const middle = root.child();
      middle.add(Other.Input, (context) => context, { name: 'replacement', id: 'x', replace: true });
      const grandchild = middle.child();
      grandchild.add(Stage.Wrap, passThrough, { name: 'constrained', before: ['x'] });
      expect(names(grandchild)).toEqual(['wrap:constrained']);
    });
  });

  describe('a constraint naming an id the child replaced on the same stage and phase', () => {
    it('names the replacement, which took the hidden one’s place in the outer level', () => {
      const parent = new MiddlewareRegistry();
      parent.add(Stage.Wrap, passThrough, { name: 'hidden', id: 'x' });
      const child = parent.child();
      child.add(Stage.Wrap, passThrough, { name: 'replacement', id: 'x', replace: true });
      child.add(Stage.Wrap, passThrough, { name: 'constrained', after: ['x'] });
      expect(names(child)).toEqual(['wrap:replacement', 'wrap:constrained']);
    });

    it('raises ERR_ORDER_CONFLICT for a before: the replacement sits in the outer level', () => {
      const parent = new MiddlewareRegistry();
      parent.add(Stage.Wrap, passThrough, { name: 'hidden', id: 'x' });
      const child = parent.child();
      child.add(Stage.Wrap, passThrough, { name: 'replacement', id: 'x', replace: true });
      child.add(Stage.Wrap, passThrough, { name: 'constrained', before: ['x'] });
      expect(fields(caught(() => child.describe(Stage)))).toEqual({
        code: 'ERR_ORDER_CONFLICT',
        stage: 'model',
        phase: 'wrap',
        handler: 'constrained',
      });
    });
  });

  describe('an id an ancestor registers after its child did, without replace on the child', () => {
    it('raises ERR_DUPLICATE_ID when the child chain is resolved, saying so', () => {
      const parent = new MiddlewareRegistry();
      const child = parent.child();
      child.add(Stage.Wrap, passThrough, { name: 'mine', id: 'x' });
      parent.add(Stage.Wrap, passThrough, { name: 'late', id: 'x' });
      const error = caught(() => child.describe(Stage));
      expect([fields(error), error.message.startsWith('[ERR_DUPLICATE_ID] Resolving a scoped registry: the id "x"')]).toEqual([
        { code: 'ERR_DUPLICATE_ID', stage: 'model', phase: 'wrap', handler: 'mine' },
        true,
      ]);
    });
  });
});
