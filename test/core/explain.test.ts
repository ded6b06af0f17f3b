import { describe, expect, it } from 'vitest';
import { createStage, MiddlewareRegistry, type MiddlewareResult } from '../../src/core/index';
import { caught } from '../assertions';
import { passThrough } from '../fixtures';

interface Context {
  readonly prompt: string;
}
const Stage = createStage<Context, string>('invokeModel');

function sample(): MiddlewareRegistry {
  const parent = new MiddlewareRegistry();
  parent.add(Stage.Wrap, passThrough, { name: 'timeline', id: 'timeline' });
  parent.use({ name: 'safety', setup: (registrar) => registrar.add(Stage.Output, (result) => result, { name: 'redact' }) });
  const registry = parent.child();
  registry.add(Stage.Input, function addDate(context) {
    return context;
  });
  registry.add(Stage.Output, (result) => result, { name: 'format', order: 2 });
  registry.add(Stage.Wrap, passThrough, { name: 'retry', id: 'retry', after: ['cache'], next: 'many' });
  registry.add(Stage.Wrap, passThrough, { name: 'cache', id: 'cache', order: 3, next: 'at-most-once' });
  return registry;
}

describe('MiddlewareRegistry.describe', () => {
  it('lists Input, then Output, then Wrap entries in nesting order, without the functions', () => {
    expect(sample().describe(Stage)).toEqual([
      {
        phase: 'input',
        position: 0,
        name: 'addDate',
        id: undefined,
        order: 0,
        before: [],
        after: [],
        next: 'many',
        source: 'registry',
        bundle: undefined,
        depth: 0,
      },
      {
        phase: 'output',
        position: 0,
        name: 'redact',
        id: undefined,
        order: 0,
        before: [],
        after: [],
        next: 'many',
        source: 'scope',
        bundle: 'safety',
        depth: 1,
      },
      {
        phase: 'output',
        position: 1,
        name: 'format',
        id: undefined,
        order: 2,
        before: [],
        after: [],
        next: 'many',
        source: 'registry',
        bundle: undefined,
        depth: 0,
      },
      {
        phase: 'wrap',
        position: 0,
        name: 'timeline',
        id: 'timeline',
        order: 0,
        before: [],
        after: [],
        next: 'many',
        source: 'scope',
        bundle: undefined,
        depth: 1,
      },
      {
        phase: 'wrap',
        position: 1,
        name: 'cache',
        id: 'cache',
        order: 3,
        before: [],
        after: [],
        next: 'at-most-once',
        source: 'registry',
        bundle: undefined,
        depth: 0,
      },
      {
        phase: 'wrap',
        position: 2,
        name: 'retry',
        id: 'retry',
        order: 0,
        before: [],
        after: ['cache'],
        next: 'many',
        source: 'registry',
        bundle: undefined,
        depth: 0,
      },
    ]);
  });

  it('includes per-invoke handlers given as use', () => {
    const entries = new MiddlewareRegistry().describe(Stage, { use: [[Stage.Input, (context: Context) => context, { name: 'once' }]] });
    expect(entries.map((entry) => [entry.name, entry.source, entry.depth])).toEqual([['once', 'invoke', -1]]);
  });

  it('gives an empty list for a stage with no handlers', () => {
    expect(new MiddlewareRegistry().describe(Stage)).toEqual([]);
  });

  it('rejects a phase token with ERR_UNKNOWN_PHASE', () => {
    const error = caught(() => new MiddlewareRegistry().describe(Stage.Input as never));
    expect({ code: error.code, stage: error.stage }).toEqual({ code: 'ERR_UNKNOWN_PHASE', stage: 'invokeModel' });
    expect(error.message).toContain('registry.describe expects a stage from createStage(), got its input phase token.');
  });
});

describe('MiddlewareRegistry.explain', () => {
  it('draws the onion outermost first with each entry details', () => {
    expect(sample().explain(Stage)).toBe(
      [
        'stage "invokeModel"',
        '├─ input   1. addDate',
        '├─ output  1. redact  [inherited from bundle safety]  (transforms last)',
        '├─ output  2. format  [order 2]',
        '└─ wrap    1. timeline  [inherited]',
        '   └─ wrap    2. cache  [order 3; next at-most-once]',
        '      └─ wrap    3. retry  [after cache]',
        '         └─ terminal',
      ].join('\n'),
    );
  });

  it('shows ids that differ from names, before constraints, bundles of this registry and per-invoke handlers', () => {
    const registry = new MiddlewareRegistry();
    registry.use({ name: 'kit', setup: (registrar) => registrar.add(Stage.Wrap, passThrough, { id: 'kit.pass', before: ['x'] }) });
    registry.add(Stage.Wrap, passThrough, { id: 'x', name: 'x' });
    expect(registry.explain(Stage, { use: [[Stage.Output, (result: MiddlewareResult<string>) => result, { name: 'only' }]] })).toBe(
      [
        'stage "invokeModel"',
        '├─ output  1. only  [this invoke only]',
        '└─ wrap    1. passThrough  [id kit.pass; before x; bundle kit]',
        '   └─ wrap    2. x',
        '      └─ terminal',
      ].join('\n'),
    );
  });

  it('draws a stage without handlers as its terminal', () => {
    expect(new MiddlewareRegistry().explain(Stage)).toBe('stage "invokeModel"\n└─ terminal');
  });

  it.each([
    ['undefined', undefined],
    ['a phase token', Stage.Wrap],
  ])('rejects %s with ERR_UNKNOWN_PHASE', (_label, stage) => {
    expect(caught(() => new MiddlewareRegistry().explain(stage as never)).code).toBe('ERR_UNKNOWN_PHASE');
  });
});
