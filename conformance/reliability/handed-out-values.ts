/**
 * The `handed-out-values` reliability scenario (MW-037): every value the
 * library hands out, mutated where possible, and what a later invoke sees.
 */
import {
  createStage,
  MiddlewareRegistry,
  MiddlewareResult,
  registration,
  splitSystemPrompt,
  toSystemBlocks,
  type Next,
} from '../../src/core/index';
import type { Json } from '../cases/case-base';
import { drain, isResult, type Events, type Observed } from './scenario-tools';

/** Paths under `value` where a write, an added or deleted property or an array push took effect (each undone); `foreign` objects are not walked. */
function mutablePaths(value: unknown, path: string, foreign: ReadonlySet<unknown>, seen: Set<unknown>): string[] {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function') || foreign.has(value) || seen.has(value)) return [];
  seen.add(value);
  const target = value as Record<PropertyKey, unknown>;
  const found: string[] = [];
  let mutated = false;
  const probe = Symbol('probe');
  try {
    target[probe] = 1;
    mutated = target[probe] === 1;
    delete target[probe];
  } catch {
    // Refused: frozen.
  }
  for (const key of Reflect.ownKeys(target)) {
    const before = target[key];
    try {
      target[key] = 'changed';
      if (target[key] !== before) {
        mutated = true;
        target[key] = before;
      }
    } catch {
      // Refused: frozen.
    }
  }
  if (Array.isArray(target)) {
    try {
      (target as unknown[]).push('pushed');
      (target as unknown[]).pop();
      mutated = true;
    } catch {
      // Refused: frozen.
    }
  }
  if (mutated) found.push(path);
  for (const key of Reflect.ownKeys(target)) found.push(...mutablePaths(target[key], `${path}.${String(key)}`, foreign, seen));
  return found;
}

/** Runs the scenario. */
export async function handedOutValues(): Promise<Observed> {
  const stage = createStage<Json, Json>('handed-out', { isResult });
  const registry = new MiddlewareRegistry({ onWarning: (warning) => seen.warnings?.push(warning) });
  const seen: Record<string, unknown[]> = { invokes: [], layers: [], handlers: [], outcomes: [], warnings: [], results: [] };
  const input = (context: Json): Json => context;
  const wrap = async function* wrap(_context: Json, next: Next<Json, Json>): Events {
    yield* next();
  };
  const output = (result: MiddlewareResult<Json>): MiddlewareResult<Json> => (seen.results?.push(result), result);
  const instrumentation = {
    name: 'observer',
    invoke(info: unknown) {
      seen.invokes?.push(info);
      return {
        layer: (layer: unknown, events: AsyncGenerator<unknown, void, undefined>) => (seen.layers?.push(layer), events),
        handlerStart: (handler: unknown) => seen.handlers?.push(handler),
        end: (outcome: unknown) => seen.outcomes?.push(outcome),
      };
    },
  };
  registry.instrument(instrumentation);
  registry.add(stage.Input, input, { id: 'input', before: ['unknown'] });
  registry.add(stage.Wrap, wrap, { id: 'outer', before: ['inner'] });
  registry.add(stage.Wrap, wrap, { id: 'inner', after: ['outer'] });
  registry.add(stage.Output, output);
  const context = { prompt: 'x' };
  const terminal = async function* terminal(): Events {
    yield { delta: 1 };
    yield { result: true, text: 'done' };
  };
  const run = async (): Promise<string> => {
    for (const [name, list] of Object.entries(seen)) if (name !== 'warnings') list.length = 0;
    const events = registry.invoke(stage, context, terminal);
    const delivered = await drain(events);
    const end = await events.next();
    const infos = JSON.stringify(
      // Warnings come once per resolution, and the second run reuses the cached chain: they are walked, not compared.
      Object.fromEntries(
        Object.entries(seen)
          .filter(([name]) => name !== 'warnings')
          .map(([name, list]) => [name, list.map((item) => (MiddlewareResult.isInstance(item) ? item.value : item))]),
      ),
      (key, value: unknown) => (key === 'stage' ? undefined : value),
    );
    return JSON.stringify({ describe: registry.describe(stage), explain: registry.explain(stage), delivered, end, infos });
  };
  const before = await run();
  const blocks = [{ text: 'a' }, { cachePoint: { type: 'default' } }];
  const perInvoke = async function* perInvoke(_context: Json, next: Next<Json, Json>): Events {
    yield* next();
  };
  const events = registry.invoke(stage, context, terminal);
  await drain(events);
  const handedOut: Record<string, unknown> = {
    stage,
    describe: [...registry.describe(stage)],
    ...Object.fromEntries(Object.entries(seen).map(([name, list]) => [name, [...list]])),
    end: await events.next(),
    toSystemBlocks: toSystemBlocks('be terse'),
    splitSystemPrompt: splitSystemPrompt('be terse'),
    splitSystemPromptOfBlocks: splitSystemPrompt(blocks),
    on: registration(stage.Wrap, perInvoke),
  };
  const foreign = new Set<unknown>([context, input, wrap, output, instrumentation, terminal, isResult, blocks, perInvoke]);
  const visited = new Set<unknown>();
  // The arrays the scenario collected into are its own: their items are walked, not the arrays.
  const own = new Set(['describe', ...Object.keys(seen)]);
  const mutable = Object.entries(handedOut).flatMap(([name, value]) =>
    own.has(name)
      ? (value as unknown[]).flatMap((item, index) => mutablePaths(item, `${name}[${index}]`, foreign, visited))
      : mutablePaths(value, name, foreign, visited),
  );
  return { mutable, unchanged: (await run()) === before };
}
