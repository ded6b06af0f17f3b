/**
 * Nothing internal escapes (SPEC MW-037): every object or array the library
 * returns or hands to user code, down to the user's own values, is frozen,
 * so mutating it changes nothing inside.
 */
import { describe, expect, it } from 'vitest';
import {
  createStage,
  MiddlewareRegistry,
  MiddlewareResult,
  registration,
  splitSystemPrompt,
  toSystemBlocks,
  type HandlerInfo,
  type InvokeInfo,
  type InvokeOutcome,
  type LayerInfo,
  type MiddlewareWarning,
} from '../src/core/index';
import { collect } from './assertions';

interface Context {
  readonly prompt: string;
}
const Stage = createStage<Context, string>('model', { isResult: (event) => event.startsWith('final') });

/**
 * Paths under `value` (named from `path`) where a write, an added or deleted
 * property or an array push took effect. Objects in `foreign` belong to the
 * user and are not walked. Every successful write is undone.
 */
function mutablePaths(value: unknown, path: string, foreign: ReadonlySet<unknown>, seen = new Set<unknown>()): string[] {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return [];
  if (foreign.has(value) || seen.has(value)) return [];
  seen.add(value);
  const target = value as Record<PropertyKey, unknown>;
  const found: string[] = [];
  if (mutates(target)) found.push(path);
  for (const key of Reflect.ownKeys(target)) found.push(...mutablePaths(target[key], `${path}.${String(key)}`, foreign, seen));
  return found;
}

function mutates(target: Record<PropertyKey, unknown>): boolean {
  const probe = Symbol('probe');
  try {
    target[probe] = 1;
    if (target[probe] === 1) return true;
  } catch {
    // A frozen object refuses the write.
  }
  for (const key of Reflect.ownKeys(target)) {
    const before = target[key];
    try {
      target[key] = 'changed';
    } catch {
      continue;
    }
    if (target[key] !== before) {
      target[key] = before;
      return true;
    }
  }
  if (Array.isArray(target)) {
    try {
      (target as unknown[]).push('pushed');
      return true;
    } catch {
      // A frozen array refuses the push.
    }
  }
  return false;
}

/** Runs one observed invoke and collects every value the library handed out. */
async function handedOut() {
  const infos: { invokes: InvokeInfo[]; layers: LayerInfo[]; handlers: HandlerInfo[]; outcomes: InvokeOutcome[] } = {
    invokes: [],
    layers: [],
    handlers: [],
    outcomes: [],
  };
  const warnings: MiddlewareWarning[] = [];
  const results: MiddlewareResult<string>[] = [];
  const registry = new MiddlewareRegistry({ onWarning: (warning) => warnings.push(warning) });
  const input = (context: Context): Context => context;
  const wrap = async function* outer(_context: Context, next: (context?: Context) => AsyncGenerator<string>): AsyncGenerator<string> {
    yield* next();
  };
  const output = (result: MiddlewareResult<string>): MiddlewareResult<string> => (results.push(result), result);
  const instrumentation = {
    name: 'observer',
    invoke(info: InvokeInfo) {
      infos.invokes.push(info);
      return {
        layer: (layer: LayerInfo, events: AsyncGenerator<unknown, void, undefined>) => (infos.layers.push(layer), events),
        handlerStart: (handler: HandlerInfo) => infos.handlers.push(handler),
        end: (outcome: InvokeOutcome) => infos.outcomes.push(outcome),
      };
    },
  };
  registry.instrument(instrumentation);
  registry.add(Stage.Input, input, { id: 'input', before: ['unknown'] });
  registry.add(Stage.Wrap, wrap, { id: 'outer', before: ['inner'] });
  registry.add(Stage.Wrap, wrap, { id: 'inner', after: ['outer'] });
  registry.add(Stage.Output, output);
  const context: Context = { prompt: 'x' };
  const terminal = async function* terminal(): AsyncGenerator<string> {
    yield 'final answer';
  };
  const events = registry.invoke(Stage, context, terminal);
  const delivered = await collect(events);
  const after = await events.next();
  const foreign = new Set<unknown>([context, input, wrap, output, instrumentation, terminal, Stage.isResult, 'final answer']);
  return { registry, events, delivered, after, infos, warnings, results, foreign, context, terminal };
}

describe('values the library hands out', () => {
  it('are frozen down to the user values they carry', async () => {
    const { registry, events, after, infos, warnings, results, foreign } = await handedOut();
    const blocks = [{ text: 'a' }, { cachePoint: { type: 'default' } }];
    const perInvoke = async function* perInvoke(
      _context: Context,
      next: (context?: Context) => AsyncGenerator<string>,
    ): AsyncGenerator<string> {
      yield* next();
    };
    foreign.add(blocks).add(perInvoke);
    const values: Record<string, unknown> = {
      stage: Stage,
      describeEntries: [...registry.describe(Stage)],
      invokeInfos: infos.invokes,
      layerInfos: infos.layers,
      handlerInfos: infos.handlers,
      outcomes: infos.outcomes,
      warnings,
      results,
      endOfIteration: after,
      toSystemBlocksOfString: toSystemBlocks('be terse'),
      splitSystemPromptOfString: splitSystemPrompt('be terse'),
      splitSystemPromptOfBlocks: splitSystemPrompt(blocks),
      onTuple: registration(Stage.Wrap, perInvoke),
    };
    // The collecting arrays are the test's own; what they hold is the library's.
    const walked = Object.entries(values).flatMap(([name, value]) =>
      Array.isArray(value) && name !== 'onTuple' && name !== 'toSystemBlocksOfString'
        ? value.flatMap((item, index) => mutablePaths(item, `${name}[${index}]`, foreign))
        : mutablePaths(value, name, foreign),
    );
    expect({
      walked,
      counts: [infos.invokes.length, infos.layers.length, infos.handlers.length, infos.outcomes.length, warnings.length, results.length],
    }).toEqual({
      walked: [],
      counts: [1, 3, 2, 1, 1, 1],
    });
    // The resolved chain, shared by every invoke until the registry changes, is not reachable from the invoke.
    expect(
      Object.values(events).filter((field) => typeof field === 'object' && field !== null && 'wrap' in field && 'output' in field),
    ).toEqual([]);
  });

  describe('regression: pushing into describe() entries', () => {
    it('leaves the registry unchanged, so later invokes still resolve', async () => {
      const registry = new MiddlewareRegistry();
      registry.add(
        Stage.Wrap,
        async function* a(_context, next) {
          yield* next();
        },
        { id: 'a' },
      );
      registry.add(
        Stage.Wrap,
        async function* b(_context, next) {
          yield* next();
        },
        { id: 'b', after: ['a'] },
      );
      const [first, second] = registry.describe(Stage);
      let refused = 0;
      for (const list of [first?.before, first?.after, second?.before, second?.after] as unknown[][]) {
        try {
          list.push('b');
        } catch {
          refused++;
        }
      }
      expect(refused).toBe(4);
      registry.add(Stage.Input, (context) => context);
      expect(
        await registry.run(Stage, { prompt: 'x' }, async function* terminal() {
          yield 'final';
        }),
      ).toBe('final');
      expect(registry.describe(Stage).map((entry) => [entry.name, entry.before, entry.after])).toEqual([
        ['anonymous input handler', [], []],
        ['a', [], []],
        ['b', [], ['a']],
      ]);
    });
  });
});
