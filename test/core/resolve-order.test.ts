import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sortByConstraints } from '../../src/core/order';
import { createStage, MiddlewareRegistry, type MiddlewareWarning, type WrapHandler } from '../../src/core/index';
import { caught } from '../assertions';
import { ModelStage as Stage, OtherStage as Other, type PromptContext as Context } from '../fixtures';

function tracing(trace: string[], name: string): WrapHandler<Context, string> {
  return async function* traced(_context, next) {
    trace.push(name);
    yield* next();
  };
}

const terminal = async function* terminal(): AsyncGenerator<string> {
  yield 'done';
};

const wrapNames = (registry: MiddlewareRegistry): string[] => registry.describe(Stage).map((entry) => entry.name);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('MiddlewareRegistry.add', () => {
  describe('ordering by order', () => {
    it('runs lower orders outside higher ones and keeps registration order on ties', async () => {
      const registry = new MiddlewareRegistry();
      const trace: string[] = [];
      registry.add(Stage.Wrap, tracing(trace, 'b'), { name: 'b', order: 5 });
      registry.add(Stage.Wrap, tracing(trace, 'c'), { name: 'c' });
      registry.add(Stage.Wrap, tracing(trace, 'a'), { name: 'a', order: -3 });
      registry.add(Stage.Wrap, tracing(trace, 'd'), { name: 'd' });
      await registry.run(Stage, { prompt: 'x' }, terminal);
      expect(trace).toEqual(['a', 'c', 'd', 'b']);
      expect(wrapNames(registry)).toEqual(['a', 'c', 'd', 'b']);
    });

    it('orders Input and Output handlers the same way', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Input, (context) => context, { name: 'in2', order: 1 });
      registry.add(Stage.Input, (context) => context, { name: 'in1' });
      registry.add(Stage.Output, (result) => result, { name: 'out2', order: 1 });
      registry.add(Stage.Output, (result) => result, { name: 'out1' });
      expect(wrapNames(registry)).toEqual(['in1', 'in2', 'out1', 'out2']);
    });
  });

  describe('ordering by constraints', () => {
    it('puts a handler before or after the ids it names, whatever their order', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, tracing([], 'retry'), { id: 'retry', order: -10 });
      registry.add(Stage.Wrap, tracing([], 'cache'), { id: 'cache', order: -20 });
      registry.add(Stage.Wrap, tracing([], 'trace'), { id: 'trace', order: 10, before: ['cache'] });
      registry.add(Stage.Wrap, tracing([], 'log'), { id: 'log', order: -30, after: ['retry'] });
      // Free first: retry (-10) and trace (10); retry goes, freeing log (-30), which beats trace;
      // trace then frees cache. Both constraints hold although each contradicts the orders.
      expect(registry.describe(Stage).map((entry) => entry.id)).toEqual(['retry', 'log', 'trace', 'cache']);
    });

    it('rejects a cycle at add, listing it and registering nothing', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, tracing([], 'a'), { id: 'a', before: ['b'] });
      registry.add(Stage.Wrap, tracing([], 'b'), { id: 'b', before: ['c'] });
      const error = caught(() => registry.add(Stage.Wrap, tracing([], 'c'), { id: 'c', name: 'closer', before: ['a'] }));
      expect({ code: error.code, stage: error.stage, phase: error.phase }).toEqual({
        code: 'ERR_ORDER_CYCLE',
        stage: 'model',
        phase: 'wrap',
      });
      expect(error.message).toContain('form a cycle: a -> b -> c -> a');
      expect(wrapNames(registry)).toEqual(['traced', 'traced']);
      expect(registry.remove('c')).toBe(false);
    });

    it('ignores constraints across phases of one stage', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Output, (result) => result, { id: 'out', name: 'out', after: ['wrap'] });
      registry.add(Stage.Wrap, tracing([], 'w'), { id: 'wrap', name: 'wrap', after: ['out'] });
      expect(wrapNames(registry)).toEqual(['out', 'wrap']);
    });

    it('accepts a replacement whose constraints reverse those of the handler it replaces', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, tracing([], 'c'), { id: 'c', name: 'c' });
      registry.add(Stage.Wrap, tracing([], 'd'), { id: 'd', name: 'd' });
      registry.add(Stage.Wrap, tracing([], 'old'), { id: 'b', name: 'old', after: ['d'], before: ['c'] });
      expect(wrapNames(registry)).toEqual(['d', 'old', 'c']);
      registry.add(Stage.Wrap, tracing([], 'new'), { id: 'b', name: 'new', after: ['c'], before: ['d'], replace: true });
      expect(wrapNames(registry)).toEqual(['c', 'new', 'd']);
    });

    it('rejects a replacement that closes a cycle with the others, keeping the replaced handler', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, tracing([], 'a'), { id: 'a', name: 'a', before: ['b'] });
      registry.add(Stage.Wrap, tracing([], 'old'), { id: 'b', name: 'old' });
      const error = caught(() => registry.add(Stage.Wrap, tracing([], 'new'), { id: 'b', name: 'new', before: ['a'], replace: true }));
      expect({ code: error.code, handler: error.handler }).toEqual({ code: 'ERR_ORDER_CYCLE', handler: 'a' });
      expect(error.message).toContain('form a cycle: a -> b -> a');
      expect(wrapNames(registry)).toEqual(['a', 'old']);
    });

    it('forgets the constraints of a removed handler when checking later adds', () => {
      const registry = new MiddlewareRegistry({ onWarning: () => undefined });
      registry.add(Stage.Wrap, tracing([], 'a'), { id: 'a', name: 'a' });
      registry.add(Stage.Wrap, tracing([], 'z'), { id: 'z', name: 'z' });
      const dispose = registry.add(Stage.Wrap, tracing([], 'b'), { id: 'b', name: 'b', after: ['a'] });
      dispose();
      // With b's "after a" remembered, a -> b -> n -> a would look like a cycle.
      registry.add(Stage.Wrap, tracing([], 'n'), { id: 'n', name: 'n', before: ['a'], after: ['b', 'z'] });
      expect(wrapNames(registry)).toEqual(['z', 'n', 'a']);
    });

    it('agrees with sorting the whole phase on every add, for generated registrations', () => {
      const ids = ['a', 'b', 'c', 'd', 'e'];
      const registration = fc.record({
        id: fc.option(fc.constantFrom(...ids), { nil: undefined }),
        before: fc.subarray(ids, { maxLength: 2 }),
        after: fc.subarray(ids, { maxLength: 2 }),
        phase: fc.constantFrom('wrap' as const, 'input' as const),
        order: fc.integer({ min: -1, max: 1 }),
        replace: fc.boolean(),
      });
      fc.assert(
        fc.property(fc.array(registration, { maxLength: 12 }), (registrations) => {
          const registry = new MiddlewareRegistry({ onWarning: () => undefined });
          // The reference: the registrations this registry holds, checked by sorting each phase whole.
          let held: {
            id: string | undefined;
            before: string[];
            after: string[];
            phase: 'wrap' | 'input';
            order: number;
            seq: number;
            name: string;
          }[] = [];
          registrations.forEach((options, seq) => {
            const { phase, replace, ...rest } = options;
            const existing = rest.id === undefined ? undefined : held.find((other) => other.id === rest.id);
            if (existing !== undefined && !replace) return;
            const candidate = { ...rest, phase, seq: existing?.seq ?? seq, name: `h${seq}` };
            const next = [...held.filter((other) => other !== existing), candidate];
            let expected = 'ok';
            try {
              sortByConstraints(
                next.filter((other) => other.phase === phase),
                { stage: 'model', phase },
              );
            } catch (error) {
              expected = (error as Error).message;
            }
            let actual = 'ok';
            const handler = phase === 'wrap' ? tracing([], candidate.name) : (context: Context): Context => context;
            const { id, ...constraints } = rest;
            const addOptions = {
              ...constraints,
              name: candidate.name,
              ...(id === undefined ? {} : { id }),
              ...(replace && id !== undefined ? { replace: true } : {}),
            };
            try {
              registry.add((phase === 'wrap' ? Stage.Wrap : Stage.Input) as typeof Stage.Wrap, handler as never, addOptions);
            } catch (error) {
              actual = (error as Error).message;
            }
            expect(actual).toBe(expected);
            if (expected === 'ok') held = next;
          });
        }),
        { numRuns: 300 },
      );
    });

    it('rejects a cycle found only at resolution, among per-invoke handlers', () => {
      const registry = new MiddlewareRegistry();
      const error = caught(() =>
        registry.invoke(Stage, { prompt: 'x' }, terminal, {
          use: [
            [Stage.Wrap, tracing([], 'p'), { id: 'p', before: ['q'] }],
            [Stage.Wrap, tracing([], 'q'), { id: 'q', before: ['p'] }],
          ],
        }),
      );
      expect(error.code).toBe('ERR_ORDER_CYCLE');
      expect(error.message).toContain('form a cycle: p -> q -> p');
    });
  });

  describe('with a constraint naming an unknown id', () => {
    it('reports WARN_UNKNOWN_ID through onWarning and ignores the constraint', async () => {
      const warnings: MiddlewareWarning[] = [];
      const registry = new MiddlewareRegistry({ onWarning: (warning) => warnings.push(warning) });
      const trace: string[] = [];
      registry.add(Stage.Wrap, tracing(trace, 'first'), { name: 'first' });
      registry.add(Stage.Wrap, tracing(trace, 'eager'), { name: 'eager', before: ['ghost'] });
      await registry.run(Stage, { prompt: 'x' }, terminal);
      expect(trace).toEqual(['first', 'eager']);
      expect(warnings).toEqual([
        {
          code: 'WARN_UNKNOWN_ID',
          stage: 'model',
          phase: 'wrap',
          handler: 'eager',
          id: 'ghost',
          message:
            'The wrap handler "eager" of stage "model" must run before "ghost", but no handler has that id; the constraint is ignored. Check the id, or register that handler.',
        },
      ]);
    });

    it('warns once per change of the registry, not on every invoke', async () => {
      const warnings: MiddlewareWarning[] = [];
      const registry = new MiddlewareRegistry({ onWarning: (warning) => warnings.push(warning) });
      registry.add(Stage.Wrap, tracing([], 'late'), { name: 'late', after: ['ghost'] });
      await registry.run(Stage, { prompt: 'x' }, terminal);
      await registry.run(Stage, { prompt: 'x' }, terminal);
      expect(warnings.map((warning) => warning.message)).toEqual([expect.stringContaining('must run after "ghost"')]);
    });

    it('does not warn about an id registered on another stage', () => {
      const Elsewhere = createStage<Context, string>('elsewhere');
      const warnings: MiddlewareWarning[] = [];
      const registry = new MiddlewareRegistry({ onWarning: (warning) => warnings.push(warning) });
      registry.add(Elsewhere.Wrap, tracing([], 'far'), { id: 'far' });
      registry.add(Stage.Wrap, tracing([], 'near'), { after: ['far'] });
      registry.describe(Stage);
      expect(warnings).toEqual([]);
    });

    it('writes to console.warn by default', () => {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, tracing([], 'eager'), { name: 'eager', before: ['ghost'] });
      registry.describe(Stage);
      expect(warn.mock.calls).toEqual([
        [expect.stringMatching(/^\[staged-middleware\] WARN_UNKNOWN_ID: The wrap handler "eager" .*"ghost"/)],
      ]);
    });
  });

  describe('with a constraint contradicting scope nesting', () => {
    it('rejects a child handler that must run before a parent one with ERR_ORDER_CONFLICT', () => {
      const parent = new MiddlewareRegistry();
      parent.add(Stage.Wrap, tracing([], 'outer'), { id: 'outer' });
      const child = parent.child();
      child.add(Stage.Wrap, tracing([], 'pushy'), { id: 'pushy', name: 'pushy', before: ['outer'] });
      const error = caught(() => child.describe(Stage));
      expect({ code: error.code, stage: error.stage, phase: error.phase, handler: error.handler }).toEqual({
        code: 'ERR_ORDER_CONFLICT',
        stage: 'model',
        phase: 'wrap',
        handler: 'pushy',
      });
      expect(error.message).toContain('must run before "outer", but "outer" belongs to an outer scope');
      expect(error.message).toContain('Register both in the same scope.');
    });

    it('rejects a parent handler that must run after a child one', () => {
      const parent = new MiddlewareRegistry();
      parent.add(Stage.Wrap, tracing([], 'p'), { id: 'p', name: 'p', after: ['c'] });
      const child = parent.child();
      child.add(Stage.Wrap, tracing([], 'c'), { id: 'c' });
      const error = caught(() => child.describe(Stage));
      expect(error.code).toBe('ERR_ORDER_CONFLICT');
      expect(error.message).toContain('must run after "c", but "c" belongs to an inner scope');
    });

    it('ignores a constraint naming a parent id on another stage instead of reporting a conflict', () => {
      const parent = new MiddlewareRegistry();
      parent.add(Other.Wrap, tracing([], 'elsewhere'), { id: 'elsewhere' });
      parent.add(Stage.Wrap, tracing([], 'p'), { id: 'p', name: 'p' });
      const child = parent.child();
      child.add(Stage.Wrap, tracing([], 'c'), { id: 'c', name: 'c', before: ['elsewhere'] });
      expect(wrapNames(child)).toEqual(['p', 'c']);
    });

    it('accepts constraints that agree with the nesting', () => {
      const parent = new MiddlewareRegistry();
      parent.add(Stage.Wrap, tracing([], 'p'), { id: 'p', name: 'p', before: ['c'] });
      const child = parent.child();
      child.add(Stage.Wrap, tracing([], 'c'), { id: 'c', name: 'c', after: ['p'] });
      expect(wrapNames(child)).toEqual(['p', 'c']);
    });

    it('rejects a per-invoke handler that must run before a registered one', () => {
      const registry = new MiddlewareRegistry();
      registry.add(Stage.Wrap, tracing([], 'r'), { id: 'r' });
      const error = caught(() =>
        registry.invoke(Stage, { prompt: 'x' }, terminal, { use: [[Stage.Wrap, tracing([], 'u'), { name: 'u', before: ['r'] }]] }),
      );
      expect({ code: error.code, handler: error.handler }).toEqual({ code: 'ERR_ORDER_CONFLICT', handler: 'u' });
    });
  });
});
