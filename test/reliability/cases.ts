/**
 * Runner of the `"kind": "reliability"` conformance cases
 * (`spec/cases/reliability-*.json`): scenarios the chain format cannot state.
 * Each case has `scenario` (one of the names below), its parameters, and
 * `expect`, compared as a whole with what the scenario observed. The format
 * is the zod schema in `case-schema.ts`.
 *
 * Conventions shared by every scenario: events are JSON values; an event is a
 * result when it is an object with `"result": true`; errors are reported by
 * message (user errors) or code (MiddlewareError).
 *
 * | scenario | parameters | observed |
 * | --- | --- | --- |
 * | `queued-calls` | `events`, `failAfter?` (the terminal throws `Error("stream failed")` after that many events), `calls` (`"next"`/`"return"`/`"throw"`, made at once; throw uses `Error("consumer stop")`) | `settled` (call indexes in settling order), `outcomes` (`{ value }` or `{ error }` per call) |
 * | `guard-throws` | `events`, `throwOn` (isResult throws `Error("guard failed")` for an event deep-equal to it), `output` (add an Output handler), `state` (give a state binding) | `events`, `trace`, `writes`, `error` |
 * | `throw-when-called` | `thrower`: `"outer"`/`"inner"`/`"terminal"` (a plain function throwing `Error("thrown when called")`), `recover` (the outer Wrap handler catches and yields `{"result": true, "v": "recovered"}`) | `events`, `trace`, `error` |
 * | `concurrent-invokes` | `steps`: `{ "add": tag }` / `{ "remove": tag }` / `{ "invoke": name, "turns"?: n, "deltas"?: k }` / `{ "pull": name }` (one event of a running invoke), then every invoke is drained at once | per invoke name, its delivered events |
 * | `concurrent-writeback` | `invokes` (n), `finishOrder` (invoke indexes); state `{ count: 0, writer: -1 }`, terminal call i sets `count += 1`, `writer = i` | `writes`, `final` |
 * | `abandoned` | `pulls`, `narrowed` (the Wrap handler narrows the signal) | `listeners` (on the invoke's signal once the abandoned invoke was garbage-collected), `trace` |
 * | `deep-chain` | `layers`, `events`, `stop`: `"drain"`/`"return-after-first"`/`"terminal-throws"` | `delivered` (count), `finallys` (`"innermost-first"`, `"none"` or the raw order), `error` |
 * | `second-copy` | `registerThrough`, `agentFrom`: `"first"`/`"second"` of two fresh copies of the library; handlers registered through one copy's standard stages and registry, an agent of the other asking for the tool `deleteFiles` once | `sameStages`, `trace`, `toolCalls`, `stopReason`, `recognised` |
 * | `handed-out-values` | none | `mutable` (paths of handed-out values where a mutation took effect), `unchanged` (describe, explain and a second invoke as before) |
 * | `bare-realm` | none: the library bundled and run in an edge-runtime realm, with no `process` (`bare-realm.ts`) | `globalProcess`, `invoke`, `agent`, `globals` |
 */
import { getEventListeners } from 'node:events';
import { isDeepStrictEqual } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { vi } from 'vitest';
import { z } from 'zod';
import { createStage, MiddlewareError, MiddlewareRegistry, MiddlewareResult, on, splitSystemPrompt, toSystemBlocks, type Disposer, type Next } from '../../src/index';
import type { ReliabilityCase } from './case-schema';
import { bareRealmOfSource } from './bare-realm-source';
import { secondCopy, type LibraryCopy } from './second-copy';

const json = z.json();

type Json = z.infer<typeof json>;
type Events = AsyncGenerator<Json, void, undefined>;

const isResult = (event: Json): boolean => typeof event === 'object' && event !== null && (event as Record<string, unknown>)['result'] === true;

function errorText(error: unknown): string {
  if (MiddlewareError.isInstance(error)) return error.code;
  return error instanceof Error ? error.message : String(error);
}

async function turns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}

async function drain(events: AsyncIterable<Json>): Promise<{ events: Json[]; error?: string }> {
  const seen: Json[] = [];
  try {
    for await (const event of events) seen.push(event);
    return { events: seen };
  } catch (error) {
    return { events: seen, error: errorText(error) };
  }
}

async function queuedCalls(testCase: Record<string, unknown>): Promise<Json> {
  const events = testCase['events'] as Json[];
  const failAfter = testCase['failAfter'] as number | undefined;
  const registry = new MiddlewareRegistry();
  const stage = createStage<Json, Json>('queued');
  const invoke = registry.invoke(stage, {}, async function* terminal() {
    for (let index = 0; index < events.length; index++) {
      if (index === failAfter) throw new Error('stream failed');
      yield events[index] as Json;
    }
    if (failAfter === events.length) throw new Error('stream failed');
  });
  const settled: number[] = [];
  const outcomes = await Promise.all(
    (testCase['calls'] as string[]).map((call, index) => {
      const pending = call === 'next' ? invoke.next() : call === 'return' ? invoke.return() : invoke.throw(new Error('consumer stop'));
      return pending.then(
        (value) => {
          settled.push(index);
          return { value: value.done === true ? { done: true } : { value: value.value, done: false } } as Json;
        },
        (error: unknown) => {
          settled.push(index);
          return { error: errorText(error) } as Json;
        },
      );
    }),
  );
  return { settled, outcomes };
}

async function guardThrows(testCase: Record<string, unknown>): Promise<Json> {
  const events = testCase['events'] as Json[];
  const trace: string[] = [];
  const stage = createStage<Json, Json>('guarded', {
    isResult: (event) => {
      if (isDeepStrictEqual(event, testCase['throwOn'])) throw new Error('guard failed');
      return isResult(event);
    },
  });
  const registry = new MiddlewareRegistry();
  registry.add(stage.Wrap, async function* layer(_context, next) {
    try {
      yield* next();
    } finally {
      trace.push('layer-f');
    }
  });
  if (testCase['output'] === true) {
    registry.add(stage.Output, (result) => {
      trace.push('output');
      return result;
    });
  }
  const writes: Json[] = [];
  const state = testCase['state'] === true ? { get: () => ({ n: 0 }), set: (next: Json) => void writes.push(next) } : undefined;
  const outcome = await drain(
    registry.invoke(
      stage,
      {},
      async function* terminal() {
        try {
          yield* events;
        } finally {
          trace.push('tf');
        }
      },
      state === undefined ? {} : { state },
    ),
  );
  return { events: outcome.events, trace, writes, error: outcome.error ?? null };
}

async function throwWhenCalled(testCase: Record<string, unknown>): Promise<Json> {
  const thrower = testCase['thrower'] as 'outer' | 'inner' | 'terminal';
  const trace: string[] = [];
  const stage = createStage<Json, Json>('thrower');
  const registry = new MiddlewareRegistry();
  const throwing = (): never => {
    throw new Error('thrown when called');
  };
  registry.add(
    stage.Wrap,
    thrower === 'outer'
      ? (throwing as never)
      : async function* outer(_context: Json, next: Next<Json, Json>) {
          try {
            yield* next();
          } catch (error) {
            if (testCase['recover'] !== true) throw error;
            trace.push(`caught ${errorText(error)}`);
            yield { result: true, v: 'recovered' };
          } finally {
            trace.push('outer-f');
          }
        },
  );
  registry.add(
    stage.Wrap,
    thrower === 'inner'
      ? (throwing as never)
      : async function* inner(_context: Json, next: Next<Json, Json>) {
          try {
            yield* next();
          } finally {
            trace.push('inner-f');
          }
        },
  );
  const terminal =
    thrower === 'terminal'
      ? (throwing as never)
      : async function* terminal() {
          yield { result: true, v: 'terminal' };
        };
  const outcome = await drain(registry.invoke(stage, {}, terminal));
  return { events: outcome.events, trace, error: outcome.error ?? null };
}

async function concurrentInvokes(testCase: Record<string, unknown>): Promise<Json> {
  const stage = createStage<{ name: string; turns: number; deltas: number }, Json>('concurrent', { isResult: (event) => isResult(event) });
  const registry = new MiddlewareRegistry();
  const disposers = new Map<string, Disposer>();
  const running = new Map<string, { events: Events; seen: Json[] }>();
  for (const step of testCase['steps'] as Record<string, Json>[]) {
    if (typeof step['add'] === 'string') {
      const tag = step['add'];
      disposers.set(
        tag,
        registry.add(stage.Wrap, async function* tagging(_context, next) {
          for await (const event of next()) yield { ...(event as Record<string, Json>), tags: [...((event as { tags: Json[] }).tags ?? []), tag] };
        }),
      );
    } else if (typeof step['remove'] === 'string') {
      disposers.get(step['remove'])?.();
    } else if (typeof step['pull'] === 'string') {
      const invoke = running.get(step['pull']) as { events: Events; seen: Json[] };
      const pulled = await invoke.events.next();
      if (pulled.done !== true) invoke.seen.push(pulled.value);
    } else {
      const name = step['invoke'] as string;
      const context = { name, turns: (step['turns'] as number | undefined) ?? 0, deltas: (step['deltas'] as number | undefined) ?? 0 };
      const events = registry.invoke(stage, context, async function* terminal(context) {
        await turns(context.turns);
        for (let delta = 0; delta < context.deltas; delta++) yield { invoke: context.name, delta, tags: [] };
        yield { invoke: context.name, tags: [], result: true };
      });
      running.set(name, { events, seen: [] });
    }
  }
  const rests = await Promise.all([...running.values()].map(({ events }) => drain(events)));
  return Object.fromEntries([...running].map(([name, { seen }], index) => [name, [...seen, ...(rests[index] as { events: Json[] }).events]]));
}

async function concurrentWriteback(testCase: Record<string, unknown>): Promise<Json> {
  const count = testCase['invokes'] as number;
  let store: Json = { count: 0, writer: -1 };
  const writes: Json[] = [];
  const binding = {
    get: () => store,
    set: (next: Json) => {
      store = next;
      writes.push(next);
    },
  };
  const stage = createStage<number, number>('writeback');
  const registry = new MiddlewareRegistry();
  const gates = Array.from({ length: count }, () => {
    let open!: () => void;
    const promise = new Promise<void>((resolve) => {
      open = resolve;
    });
    return { promise, open };
  });
  let started = 0;
  const invokes = gates.map((_gate, index) =>
    drain(
      registry.invoke(
        stage,
        index,
        async function* terminal(context, run) {
          const draft = run.state as { count: number; writer: number };
          draft.count += 1;
          draft.writer = context;
          started++;
          await (gates[context] as { promise: Promise<void> }).promise;
          yield context;
        },
        { state: binding as never },
      ) as Events,
    ),
  );
  while (started < count) await turns(1);
  for (const index of testCase['finishOrder'] as number[]) {
    const before = writes.length;
    (gates[index] as { open: () => void }).open();
    while (writes.length === before) await turns(1);
  }
  await Promise.all(invokes);
  return { writes, final: store };
}

async function abandoned(testCase: Record<string, unknown>): Promise<Json> {
  const trace: string[] = [];
  const stage = createStage<Json, Json>('abandoned');
  const registry = new MiddlewareRegistry();
  const extra = new AbortController();
  registry.add(stage.Wrap, async function* layer(_context, next) {
    try {
      yield* testCase['narrowed'] === true ? next(undefined, { signal: extra.signal }) : next();
    } finally {
      trace.push('layer-f');
    }
  });
  const controller = new AbortController();
  // Pulled in a function of its own, so that nothing here refers to the invoke afterwards.
  const abandon = async (): Promise<void> => {
    const events = registry.invoke(
      stage,
      {},
      async function* terminal() {
        try {
          for (let index = 0; ; index++) yield index;
        } finally {
          trace.push('tf');
        }
      },
      { signal: controller.signal },
    );
    for (let pull = 0; pull < (testCase['pulls'] as number); pull++) await events.next();
  };
  await abandon();
  await turns(1);
  await collectGarbage();
  return { listeners: getEventListeners(controller.signal, 'abort').length, trace };
}

/** Forces garbage collection a few times, letting finalisation callbacks run in between. */
async function collectGarbage(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let attempt = 0; attempt < 5; attempt++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

async function deepChain(testCase: Record<string, unknown>): Promise<Json> {
  const layers = testCase['layers'] as number;
  const eventCount = testCase['events'] as number;
  const stop = testCase['stop'] as 'drain' | 'return-after-first' | 'terminal-throws';
  const stage = createStage<Json, Json>('deep');
  const registry = new MiddlewareRegistry();
  const finallys: number[] = [];
  for (let layer = 0; layer < layers; layer++) {
    registry.add(stage.Wrap, async function* passThrough(_context, next) {
      try {
        yield* next();
      } finally {
        finallys.push(layer);
      }
    });
  }
  const events = registry.invoke(stage, {}, async function* terminal() {
    for (let index = 0; index < eventCount; index++) yield index;
    if (stop === 'terminal-throws') throw new Error('deep failure');
  });
  let delivered = 0;
  let error: string | null = null;
  try {
    for await (const _event of events) {
      delivered++;
      if (stop === 'return-after-first') break;
    }
  } catch (caught) {
    error = errorText(caught);
  }
  const innermostFirst = finallys.length === layers && finallys.every((layer, index) => layer === layers - 1 - index);
  return { delivered, finallys: innermostFirst ? 'innermost-first' : finallys.length === 0 ? 'none' : finallys, error };
}

/** A copy of the library with module-level values of its own, as the other module format or a second installed copy has. */
async function loadCopy(): Promise<LibraryCopy> {
  vi.resetModules();
  const core = await import('../../src/index');
  const agent = await import('../../src/agent/index');
  const testing = await import('../../src/testing/index');
  return { core, agent, testing };
}

async function twoCopies(testCase: Record<string, unknown>): Promise<Json> {
  return secondCopy(testCase, { first: await loadCopy(), second: await loadCopy() });
}

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

async function handedOutValues(): Promise<Json> {
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
      Object.fromEntries(Object.entries(seen).filter(([name]) => name !== 'warnings').map(([name, list]) => [name, list.map((item) => (MiddlewareResult.isInstance(item) ? item.value : item))])),
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
    on: on(stage.Wrap, perInvoke),
  };
  const foreign = new Set<unknown>([context, input, wrap, output, instrumentation, terminal, isResult, blocks, perInvoke]);
  const visited = new Set<unknown>();
  // The arrays the scenario collected into are its own: their items are walked, not the arrays.
  const own = new Set(['describe', ...Object.keys(seen)]);
  const mutable = Object.entries(handedOut).flatMap(([name, value]) =>
    own.has(name) ? (value as unknown[]).flatMap((item, index) => mutablePaths(item, `${name}[${index}]`, foreign, visited)) : mutablePaths(value, name, foreign, visited),
  );
  return { mutable, unchanged: (await run()) === before };
}

const scenarios = {
  'queued-calls': queuedCalls,
  'guard-throws': guardThrows,
  'throw-when-called': throwWhenCalled,
  'concurrent-invokes': concurrentInvokes,
  'concurrent-writeback': concurrentWriteback,
  abandoned,
  'deep-chain': deepChain,
  'second-copy': twoCopies,
  'handed-out-values': handedOutValues,
  'bare-realm': bareRealmOfSource,
} as const;

/** Runs one reliability case and returns what it observed, shaped like its `expect`. */
export function runReliabilityCase(testCase: ReliabilityCase): Promise<Json> {
  return scenarios[testCase.scenario](testCase);
}
