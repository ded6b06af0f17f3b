/**
 * Reliability scenarios about one invoke and its consumer: queued calls, a
 * throwing guard, handlers that throw when called, and a deep chain.
 */
import { createStage, MiddlewareRegistry, type Next } from '../../src/core/index';
import type { Json } from '../cases/case-base';
import { errorText } from '../library/script-environment';
import { jsonEqual } from '../runner/json-equal';
import { drain, isResult, type Observed, type Parameters } from './scenario-tools';

/** `queued-calls`: next(), return() and throw() made on one invoke before any settles (MW-061). */
export async function queuedCalls(testCase: Parameters): Promise<Observed> {
  const events = testCase.events as Json[];
  const failAfter = testCase.failAfter as number | undefined;
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
    (testCase.calls as string[]).map((call, index) => {
      const pending = call === 'next' ? invoke.next() : call === 'return' ? invoke.return() : invoke.throw(new Error('consumer stop'));
      return pending.then(
        (value) => {
          settled.push(index);
          return { value: value.done === true ? { done: true } : { value: value.value, done: false } };
        },
        (error: unknown) => {
          settled.push(index);
          return { error: errorText(error) };
        },
      );
    }),
  );
  return { settled, outcomes };
}

/** `guard-throws`: a result guard that throws for one event (MW-063). */
export async function guardThrows(testCase: Parameters): Promise<Observed> {
  const events = testCase.events as Json[];
  const trace: string[] = [];
  const stage = createStage<Json, Json>('guarded', {
    isResult: (event) => {
      if (jsonEqual(event, testCase.throwOn)) throw new Error('guard failed');
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
  if (testCase.output === true) {
    registry.add(stage.Output, (result) => {
      trace.push('output');
      return result;
    });
  }
  const writes: Json[] = [];
  const state = testCase.state === true ? { get: () => ({ n: 0 }), set: (next: Json) => void writes.push(next) } : undefined;
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

/** `throw-when-called`: a handler or terminal that throws instead of returning a generator (MW-064). */
export async function throwWhenCalled(testCase: Parameters): Promise<Observed> {
  const thrower = testCase.thrower as 'outer' | 'inner' | 'terminal';
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
            if (testCase.recover !== true) throw error;
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

/** `deep-chain`: a chain of many Wrap layers, drained, stopped or failing (MW-068). */
export async function deepChain(testCase: Parameters): Promise<Observed> {
  const layers = testCase.layers as number;
  const eventCount = testCase.events as number;
  const stop = testCase.stop as 'drain' | 'return-after-first' | 'terminal-throws';
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

/**
 * The `nested-invokes` scenario: the terminal of level n invokes the stage again for level n - 1, down to a leaf
 * terminal that yields `"leaf"` and `"after"`; every level runs the same pass-through Wrap handlers.
 */
export async function nestedInvokes(testCase: Parameters): Promise<Observed> {
  const levels = testCase.levels as number;
  const layers = testCase.layers as number;
  const stop = testCase.stop as 'drain' | 'return-after-first' | 'leaf-throws';
  const stage = createStage<number, Json>('nested');
  const registry = new MiddlewareRegistry();
  for (let layer = 0; layer < layers; layer++) {
    registry.add(stage.Wrap, async function* passThrough(_context, next) {
      yield* next();
    });
  }
  let finallys = 0;
  async function* level(depth: number): AsyncGenerator<Json, void, undefined> {
    try {
      if (depth > 0) {
        yield* registry.invoke(stage, depth - 1, level);
        return;
      }
      yield 'leaf';
      yield 'after';
      if (stop === 'leaf-throws') throw new Error('leaf failure');
    } finally {
      finallys++;
    }
  }
  const delivered: Json[] = [];
  let error: string | null = null;
  try {
    for await (const event of registry.invoke(stage, levels, level)) {
      delivered.push(event);
      if (stop === 'return-after-first') break;
    }
  } catch (caught) {
    error = errorText(caught);
  }
  return { delivered, finallys, error };
}
