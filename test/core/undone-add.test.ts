/**
 * An add removed before anything else changed (MW-026, MW-043): the registry
 * is then exactly as it was before the add, so the chains cached before it
 * hold again without being compared or resolved, even when the add gave an
 * id. Any change in between, in the registry, its parent or its child, makes
 * the removal a change like any other. Resolutions are counted by the
 * WARN_UNKNOWN_ID warning each one reports for a constraint that names no
 * registered id.
 */
import { describe, expect, it } from 'vitest';
import { createContributionKey, MiddlewareRegistry, type Instrumentation, type InvokeInfo } from '../../src/core/index';
import { ModelStage as Stage, OtherStage as Other, echo as terminal } from '../fixtures';
import { counting, names, pass } from './registry-fixtures';

describe('an add removed before anything else changed', () => {
  it('leaves the chain cached, even when the add gave an id (which can change the chain of any stage)', () => {
    const { registry, warnings } = counting();
    names(registry);
    registry.add(Stage.Wrap, pass(), { name: 'brief', id: 'brief' })();
    expect([names(registry), warnings.length]).toEqual([['constrained'], 1]);
  });

  it('frees its id again', () => {
    const { registry } = counting();
    registry.add(Stage.Wrap, pass(), { name: 'brief', id: 'brief' })();
    registry.add(Stage.Wrap, pass(), { name: 'again', id: 'brief' });
    expect(names(registry)).toEqual(['constrained', 'again']);
  });

  it('drops the handler from a chain resolved while it was there', async () => {
    const { registry, warnings } = counting();
    const dispose = registry.add(Stage.Wrap, pass(), { name: 'brief' });
    expect(names(registry)).toEqual(['constrained', 'brief']);
    dispose();
    expect([names(registry), await registry.run(Stage, { prompt: 'x' }, terminal), warnings.length]).toEqual([['constrained'], 'x', 2]);
  });

  it('keeps an instrumentation added in between', async () => {
    const { registry } = counting();
    names(registry);
    const dispose = registry.add(Stage.Wrap, pass(), { name: 'brief' });
    const seen: string[] = [];
    const watcher: Instrumentation = {
      name: 'watcher',
      invoke: (info: InvokeInfo) => {
        seen.push(info.stage.name);
        return undefined;
      },
    };
    registry.instrument(watcher);
    dispose();
    await registry.run(Stage, { prompt: 'x' }, terminal);
    expect([names(registry), seen]).toEqual([['constrained'], [Stage.name]]);
  });

  it('keeps a contribution provided in between', () => {
    const Notes = createContributionKey<string>('test.notes');
    const registry = new MiddlewareRegistry();
    expect(registry.contributions(Notes)).toEqual([]);
    const dispose = registry.add(Stage.Wrap, pass(), { name: 'brief' });
    registry.use({ name: 'notes', setup: (registrar) => void registrar.provide(Notes, 'kept') });
    dispose();
    expect(registry.contributions(Notes).map((contribution) => contribution.value)).toEqual(['kept']);
  });

  it("drops a parent's handler from the chain of a child that changed in between", () => {
    const parent = new MiddlewareRegistry();
    const child = parent.child();
    const dispose = parent.add(Stage.Wrap, pass(), { name: 'parental' });
    child.add(Stage.Wrap, pass(), { name: 'own' });
    expect(names(child)).toEqual(['parental', 'own']);
    dispose();
    expect(names(child)).toEqual(['own']);
  });

  it("drops a parent's handler from the chain of a child resolved while it was there", () => {
    const parent = new MiddlewareRegistry();
    const child = parent.child();
    child.add(Stage.Wrap, pass(), { name: 'own' });
    expect(names(child)).toEqual(['own']);
    const dispose = parent.add(Stage.Wrap, pass(), { name: 'parental' });
    expect(names(child)).toEqual(['parental', 'own']);
    dispose();
    expect(names(child)).toEqual(['own']);
  });

  it('is a change like any other after a second add, which is removed first', () => {
    const { registry, warnings } = counting();
    names(registry);
    const first = registry.add(Stage.Wrap, pass(), { name: 'first' });
    registry.add(Stage.Wrap, pass(), { name: 'second' })();
    first();
    expect([names(registry), warnings.length]).toEqual([['constrained'], 1]);
  });
});

describe('a removal that undoes nothing', () => {
  it('drops both a replaced handler and its replacement removed at once', () => {
    const registry = new MiddlewareRegistry();
    registry.add(Stage.Wrap, pass(), { name: 'original', id: 'kept' });
    expect(names(registry)).toEqual(['original']);
    registry.add(Stage.Wrap, pass(), { name: 'replacement', id: 'kept', replace: true })();
    expect(names(registry)).toEqual([]);
  });

  it("re-resolves the other stages' chains when an id goes after another change", () => {
    const { registry, warnings } = counting();
    registry.add(Other.Wrap, pass(), { name: 'named', id: 'nowhere' });
    expect([names(registry), warnings.length]).toEqual([['constrained'], 0]);
    const dispose = registry.add(Other.Wrap, pass(), { name: 'brief' });
    registry.add(Other.Wrap, pass(), { name: 'later' });
    registry.remove('nowhere');
    dispose();
    expect([names(registry), warnings.map((warning) => (warning.code === 'WARN_UNKNOWN_ID' ? warning.id : warning.code))]).toEqual([
      ['constrained'],
      ['nowhere'],
    ]);
  });
});
