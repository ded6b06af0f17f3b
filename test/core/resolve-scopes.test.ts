import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, type WrapHandler } from '../../src/core/index';
import { caught } from '../assertions';
import { ModelStage as Stage, OtherStage as Other, echo as terminal, type PromptContext as Context } from '../fixtures';

function tracing(trace: string[], name: string): WrapHandler<Context, string> {
  return async function* traced(_context, next) {
    trace.push(name);
    yield* next();
  };
}

const entries = (registry: MiddlewareRegistry, options: Parameters<MiddlewareRegistry['describe']>[1] = {}): string[] =>
  registry.describe(Stage, options).map((entry) => `${entry.phase}:${entry.name}@${entry.depth}/${entry.source}`);

describe('MiddlewareRegistry.child', () => {
  describe('visibility', () => {
    it('sees handlers the parent adds after the child was created, even after a cached run', async () => {
      const parent = new MiddlewareRegistry();
      const child = parent.child();
      const trace: string[] = [];
      await child.run(Stage, { prompt: 'x' }, terminal);
      parent.add(Stage.Wrap, tracing(trace, 'late'), { name: 'late' });
      await child.run(Stage, { prompt: 'x' }, terminal);
      expect(trace).toEqual(['late']);
    });

    it('stops seeing a handler the parent removes', async () => {
      const parent = new MiddlewareRegistry();
      const child = parent.child();
      const trace: string[] = [];
      const dispose = parent.add(Stage.Wrap, tracing(trace, 'gone'));
      await child.run(Stage, { prompt: 'x' }, terminal);
      dispose();
      await child.run(Stage, { prompt: 'x' }, terminal);
      expect(trace).toEqual(['gone']);
    });

    it('keeps its own handlers from the parent', async () => {
      const parent = new MiddlewareRegistry();
      const child = parent.child();
      const trace: string[] = [];
      child.add(Stage.Wrap, tracing(trace, 'mine'));
      await parent.run(Stage, { prompt: 'x' }, terminal);
      expect(trace).toEqual([]);
    });
  });

  describe('nesting', () => {
    it('runs parent handlers outside child handlers outside per-invoke handlers, whatever their order', async () => {
      const parent = new MiddlewareRegistry();
      const child = parent.child();
      const trace: string[] = [];
      parent.add(Stage.Wrap, tracing(trace, 'parent'), { order: 100 });
      child.add(Stage.Wrap, tracing(trace, 'child'), { order: 0 });
      parent.add(
        Stage.Input,
        (context) => {
          trace.push('parent input');
          return context;
        },
        { order: 50 },
      );
      child.add(
        Stage.Input,
        (context) => {
          trace.push('child input');
          return context;
        },
        { order: -50 },
      );
      parent.add(Stage.Output, (result) => {
        trace.push('parent output');
        return result.replace(`${result.value}+parent`);
      });
      child.add(Stage.Output, (result) => {
        trace.push('child output');
        return result.replace(`${result.value}+child`);
      });
      const result = await child.run(Stage, { prompt: 'x' }, terminal, { use: [[Stage.Wrap, tracing(trace, 'invoke'), { order: -100 }]] });
      expect(trace).toEqual(['parent input', 'child input', 'parent', 'child', 'invoke', 'child output', 'parent output']);
      expect(result).toBe('x+child+parent');
    });

    it('reports depth and source for each level', () => {
      const root = new MiddlewareRegistry();
      const middle = root.child();
      const leaf = middle.child();
      root.add(Stage.Wrap, tracing([], 'r'), { name: 'root' });
      middle.add(Stage.Wrap, tracing([], 'm'), { name: 'middle' });
      leaf.add(Stage.Wrap, tracing([], 'l'), { name: 'leaf' });
      expect(entries(leaf, { use: [[Stage.Wrap, tracing([], 'i'), { name: 'once' }]] })).toEqual([
        'wrap:root@2/scope',
        'wrap:middle@1/scope',
        'wrap:leaf@0/registry',
        'wrap:once@-1/invoke',
      ]);
    });
  });

  describe('ids across scopes', () => {
    it('rejects a child registration reusing a parent id without replace', () => {
      const parent = new MiddlewareRegistry();
      parent.add(Stage.Wrap, tracing([], 'p'), { id: 'retry' });
      const child = parent.child();
      const error = caught(() => child.add(Stage.Wrap, tracing([], 'c'), { id: 'retry', name: 'mine' }));
      expect({ code: error.code, handler: error.handler }).toEqual({ code: 'ERR_DUPLICATE_ID', handler: 'mine' });
      expect(entries(child)).toEqual(['wrap:traced@1/scope']);
    });

    it('rejects a grandchild registration reusing an id of its grandparent without replace', () => {
      const root = new MiddlewareRegistry();
      root.add(Stage.Wrap, tracing([], 'r'), { id: 'retry' });
      const grandchild = root.child().child();
      const error = caught(() => grandchild.add(Stage.Wrap, tracing([], 'g'), { id: 'retry', name: 'mine' }));
      expect({ code: error.code, handler: error.handler }).toEqual({ code: 'ERR_DUPLICATE_ID', handler: 'mine' });
      expect(entries(grandchild)).toEqual(['wrap:traced@2/scope']);
    });

    it('lets a child replace a parent id on another stage: the parent one disappears and the replacement shows on its own stage', () => {
      const parent = new MiddlewareRegistry();
      parent.add(Other.Wrap, tracing([], 'p'), { id: 'x', name: 'parentOther' });
      parent.add(Stage.Wrap, tracing([], 'kept'), { name: 'kept' });
      const child = parent.child();
      child.add(Stage.Wrap, tracing([], 'c'), { id: 'x', name: 'childWrap', replace: true });
      expect([entries(child), child.describe(Other).map((entry) => entry.name)]).toEqual([
        ['wrap:kept@1/scope', 'wrap:childWrap@0/registry'],
        [],
      ]);
      expect(parent.describe(Other).map((entry) => entry.name)).toEqual(['parentOther']);
    });

    it('lets a child replace a parent id for the child only, in the parent handler position', async () => {
      const parent = new MiddlewareRegistry();
      parent.add(Stage.Wrap, tracing([], 'a'), { name: 'a' });
      parent.add(Stage.Wrap, tracing([], 'p'), { name: 'parentRetry', id: 'retry' });
      parent.add(Stage.Wrap, tracing([], 'b'), { name: 'b' });
      const child = parent.child();
      const trace: string[] = [];
      child.add(Stage.Wrap, tracing(trace, 'childRetry'), { name: 'childRetry', id: 'retry', replace: true });
      child.add(Stage.Wrap, tracing([], 'own'), { name: 'own' });
      expect(entries(child)).toEqual(['wrap:a@1/scope', 'wrap:childRetry@0/registry', 'wrap:b@1/scope', 'wrap:own@0/registry']);
      expect(parent.describe(Stage).map((entry) => entry.name)).toEqual(['a', 'parentRetry', 'b']);
      await child.run(Stage, { prompt: 'x' }, terminal);
      expect(trace).toEqual(['childRetry']);
    });

    it('fails at resolution when a parent later registers an id a child already uses', () => {
      const parent = new MiddlewareRegistry();
      const child = parent.child();
      child.add(Stage.Wrap, tracing([], 'c'), { id: 'shared', name: 'childOne' });
      parent.add(Stage.Wrap, tracing([], 'p'), { id: 'shared' });
      const error = caught(() => child.describe(Stage));
      expect({ code: error.code, handler: error.handler }).toEqual({ code: 'ERR_DUPLICATE_ID', handler: 'childOne' });
      expect(error.message).toContain('the id "shared" is already registered, so');
    });

    it('hides a parent id replaced in another phase and keeps the replacement at its own level', () => {
      const parent = new MiddlewareRegistry();
      parent.add(Stage.Input, (context) => context, { id: 'x', name: 'parentInput' });
      parent.add(Stage.Wrap, tracing([], 'p'), { name: 'parentWrap' });
      const child = parent.child();
      child.add(Stage.Wrap, tracing([], 'c'), { id: 'x', name: 'childWrap', replace: true });
      expect(entries(child)).toEqual(['wrap:parentWrap@1/scope', 'wrap:childWrap@0/registry']);
    });
  });
});

describe('InvokeOptions.use', () => {
  it('replaces a registered id for one invoke only', async () => {
    const registry = new MiddlewareRegistry();
    const trace: string[] = [];
    registry.add(Stage.Wrap, tracing(trace, 'outer'), { order: -1 });
    registry.add(Stage.Wrap, tracing(trace, 'registered'), { id: 'cache' });
    registry.add(Stage.Wrap, tracing(trace, 'inner'), { order: 1 });
    await registry.run(Stage, { prompt: 'x' }, terminal, {
      use: [[Stage.Wrap, tracing(trace, 'swapped'), { id: 'cache', replace: true }]],
    });
    await registry.run(Stage, { prompt: 'x' }, terminal);
    expect(trace).toEqual(['outer', 'swapped', 'inner', 'outer', 'registered', 'inner']);
  });

  it('reports a per-invoke replacement as this invoke only, in the replaced position', () => {
    const registry = new MiddlewareRegistry();
    registry.add(Stage.Wrap, tracing([], 'r'), { id: 'cache', name: 'registered' });
    registry.add(Stage.Wrap, tracing([], 'i'), { name: 'inner', order: 1 });
    expect(entries(registry, { use: [[Stage.Wrap, tracing([], 's'), { id: 'cache', name: 'swapped', replace: true }]] })).toEqual([
      'wrap:swapped@-1/invoke',
      'wrap:inner@0/registry',
    ]);
  });

  it('rejects a per-invoke id that is already registered, without replace', () => {
    const registry = new MiddlewareRegistry();
    registry.add(Stage.Wrap, tracing([], 'r'), { id: 'cache' });
    const error = caught(() =>
      registry.invoke(Stage, { prompt: 'x' }, terminal, { use: [[Stage.Wrap, tracing([], 'u'), { id: 'cache', name: 'u' }]] }),
    );
    expect({ code: error.code, handler: error.handler }).toEqual({ code: 'ERR_DUPLICATE_ID', handler: 'u' });
  });

  it('rejects two per-invoke handlers with one id', () => {
    const error = caught(() =>
      new MiddlewareRegistry().invoke(Stage, { prompt: 'x' }, terminal, {
        use: [
          [Stage.Wrap, tracing([], 'a'), { id: 'dup' }],
          [Stage.Wrap, tracing([], 'b'), { id: 'dup', name: 'second' }],
        ],
      }),
    );
    expect({ code: error.code, handler: error.handler }).toEqual({ code: 'ERR_DUPLICATE_ID', handler: 'second' });
    expect(error.message).toContain('invoke options.use: the id "dup" is already registered, so');
  });

  it('rejects two per-invoke handlers with one id even with replace, and does not suggest replace', () => {
    const registry = new MiddlewareRegistry();
    registry.add(Stage.Wrap, tracing([], 'r'), { id: 'dup' });
    const error = caught(() =>
      registry.invoke(Stage, { prompt: 'x' }, terminal, {
        use: [
          [Stage.Wrap, tracing([], 'a'), { id: 'dup', replace: true }],
          [Stage.Wrap, tracing([], 'b'), { id: 'dup', name: 'second', replace: true }],
        ],
      }),
    );
    expect({ code: error.code, stage: error.stage, phase: error.phase, handler: error.handler }).toEqual({
      code: 'ERR_DUPLICATE_ID',
      stage: Stage.name,
      phase: 'wrap',
      handler: 'second',
    });
    expect(error.message).toContain('Ids must be unique within one use list');
    expect(error.message).not.toContain('Pass { replace: true }');
  });

  it('runs per-invoke handlers ordered among themselves', async () => {
    const trace: string[] = [];
    await new MiddlewareRegistry().run(Stage, { prompt: 'x' }, terminal, {
      use: [
        [Stage.Wrap, tracing(trace, 'second'), { order: 2 }],
        [Stage.Wrap, tracing(trace, 'first'), { order: 1 }],
        [Stage, tracing(trace, 'third'), { order: 2 }],
      ],
    });
    expect(trace).toEqual(['first', 'second', 'third']);
  });
});
