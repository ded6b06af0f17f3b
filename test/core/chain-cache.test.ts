/**
 * The chain cache (MW-026, MW-043): a resolved chain is reused while the
 * registrations it was resolved from are unchanged, and never after a change
 * that alters it. Resolutions are counted by the WARN_UNKNOWN_ID warning each
 * one reports for a constraint that names no registered id.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, type MiddlewareWarning } from '../../src/core/index';
import { caught } from '../assertions';
import { ModelStage as Stage, OtherStage as Other, echo as terminal } from '../fixtures';
import { counting, names, pass } from './registry-fixtures';

describe('MiddlewareRegistry chain cache', () => {
  describe('a handler added and removed again', () => {
    it('leaves the chain as it was without resolving it again', async () => {
      const { registry, warnings } = counting();
      expect(await registry.run(Stage, { prompt: 'x' }, terminal)).toBe('x');
      registry.add(Stage.Wrap, pass(), { name: 'brief' })();
      expect(names(registry)).toEqual(['constrained']);
      expect(warnings.map((warning) => (warning.code === 'WARN_UNKNOWN_ID' ? warning.id : warning.code))).toEqual(['nowhere']);
    });
  });

  describe('a handler added and removed again among several', () => {
    it('leaves the chain as it was without resolving it again', () => {
      const { registry, warnings } = counting();
      registry.add(Stage.Wrap, pass(), { name: 'second' });
      names(registry);
      registry.add(Stage.Wrap, pass(), { name: 'brief' })();
      expect([names(registry), warnings.length]).toEqual([['constrained', 'second'], 1]);
    });
  });

  describe('a handler added and removed again in a child whose parent has none on the stage', () => {
    it('leaves the child chain as it was without resolving it again', () => {
      const warnings: MiddlewareWarning[] = [];
      const child = new MiddlewareRegistry({ onWarning: (warning) => warnings.push(warning) }).child();
      child.add(Stage.Wrap, pass(), { name: 'constrained', after: ['nowhere'] });
      names(child);
      child.add(Stage.Wrap, pass(), { name: 'brief' })();
      expect([names(child), warnings.length]).toEqual([['constrained'], 1]);
    });
  });

  describe('a handler added and kept on another stage of a child whose parent has none on the stage', () => {
    it('leaves the child chain as it was without resolving it again', () => {
      const warnings: MiddlewareWarning[] = [];
      const child = new MiddlewareRegistry({ onWarning: (warning) => warnings.push(warning) }).child();
      child.add(Stage.Wrap, pass(), { name: 'constrained', after: ['nowhere'] });
      names(child);
      // Kept, so the stamps move on and the cache compares every level's registrations, the parent's none included.
      child.add(Other.Wrap, pass(), { name: 'elsewhere' });
      expect([names(child), warnings.length]).toEqual([['constrained'], 1]);
    });
  });

  describe('a handler added and kept', () => {
    it('resolves the chain again with the handler in it', () => {
      const { registry, warnings } = counting();
      names(registry);
      registry.add(Stage.Wrap, pass(), { name: 'kept' });
      expect(names(registry)).toEqual(['constrained', 'kept']);
      expect(warnings).toHaveLength(2);
    });
  });

  describe('a handler removed and another added in its place', () => {
    it('resolves the chain again although the number of handlers is the same', () => {
      const { registry } = counting();
      const dispose = registry.add(Stage.Wrap, pass(), { name: 'first' });
      names(registry);
      dispose();
      registry.add(Stage.Wrap, pass(), { name: 'second' });
      expect(names(registry)).toEqual(['constrained', 'second']);
    });
  });

  describe('an id added on another stage', () => {
    it('resolves the chain again, since constraints may name it', () => {
      const { registry, warnings } = counting();
      names(registry);
      registry.add(Other.Wrap, pass(), { name: 'elsewhere', id: 'nowhere' });
      expect(names(registry)).toEqual(['constrained']);
      expect(warnings).toHaveLength(1);
      registry.remove('nowhere');
      expect(names(registry)).toEqual(['constrained']);
      expect(warnings).toHaveLength(2);
    });
  });

  describe('an id added on another stage by a child', () => {
    it('resolves the child chain again, since constraints may name it', () => {
      const warnings: MiddlewareWarning[] = [];
      const parent = new MiddlewareRegistry({ onWarning: (warning) => warnings.push(warning) });
      const child = parent.child();
      child.add(Stage.Wrap, pass(), { name: 'constrained', after: ['nowhere'] });
      names(child);
      child.add(Other.Wrap, pass(), { name: 'elsewhere', id: 'nowhere' });
      names(child);
      child.remove('nowhere');
      expect([names(child), warnings.length]).toEqual([['constrained'], 2]);
    });
  });

  describe('a parent that later registers an id its child uses, on another stage', () => {
    it('fails the child chain resolved before, although its own handlers did not change', () => {
      const parent = new MiddlewareRegistry();
      const child = parent.child();
      child.add(Stage.Wrap, pass(), { name: 'childOwn', id: 'shared' });
      expect(names(child)).toEqual(['childOwn']);
      parent.add(Other.Wrap, pass(), { name: 'parentOwn', id: 'shared' });
      expect(caught(() => child.describe(Stage))).toMatchObject({ code: 'ERR_DUPLICATE_ID' });
    });
  });

  describe('a handler without an id added on another stage', () => {
    it('leaves the chain as it was without resolving it again', () => {
      const { registry, warnings } = counting();
      names(registry);
      registry.add(Other.Wrap, pass(), { name: 'elsewhere' });
      expect([names(registry), warnings.length]).toEqual([['constrained'], 1]);
    });
  });

  describe('an empty per-invoke list', () => {
    it('uses the cached chain, as without per-invoke handlers', () => {
      const { registry, warnings } = counting();
      registry.describe(Stage, { use: [] });
      registry.describe(Stage, { use: [] });
      expect(warnings).toHaveLength(1);
    });
  });

  describe('a chain resolved with per-invoke handlers', () => {
    it('is not kept for the invokes without them', () => {
      const { registry, warnings } = counting();
      registry.describe(Stage, { use: [[Stage.Wrap, pass(), { name: 'once' }]] });
      expect([names(registry), warnings.length]).toEqual([['constrained'], 2]);
    });
  });

  describe('an instrumentation disposer called a second time', () => {
    it('changes nothing, so the chain is not resolved again', () => {
      const { registry, warnings } = counting();
      const dispose = registry.instrument({ name: 'brief', invoke: () => undefined });
      dispose();
      names(registry);
      dispose();
      names(registry);
      expect(warnings).toHaveLength(1);
    });
  });

  describe('per-invoke handlers after a chain was cached', () => {
    it('are in the chain of that invoke', () => {
      const { registry } = counting();
      names(registry);
      const entries = registry.describe(Stage, { use: [[Stage.Wrap, pass(), { name: 'once' }]] });
      expect(entries.map((entry) => entry.name)).toEqual(['constrained', 'once']);
    });
  });

  describe('an instrumentation removed', () => {
    it('no longer reaches the next invoke of a chain resolved before', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, pass());
      const seen: string[] = [];
      const dispose = registry.instrument({ name: 'seen', invoke: (info) => void seen.push(info.stage.name) });
      await registry.run(Stage, { prompt: 'x' }, terminal);
      dispose();
      await registry.run(Stage, { prompt: 'x' }, terminal);
      expect(seen).toEqual(['model']);
    });
  });

  describe('an instrumentation added', () => {
    it('reaches the next invoke of a chain resolved before', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, pass());
      await registry.run(Stage, { prompt: 'x' }, terminal);
      const seen: string[] = [];
      registry.instrument({ name: 'seen', invoke: (info) => void seen.push(info.stage.name) });
      await registry.run(Stage, { prompt: 'x' }, terminal);
      expect(seen).toEqual(['model']);
    });
  });
});
