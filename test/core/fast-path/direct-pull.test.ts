/**
 * An iterator of ours pulling another of ours (a pass-through generator pulling an invoke, an
 * invoke pulling a pass-through generator) uses `nextInto`, which runs the puller's callbacks
 * in the reaction that made the answer: a stack of them costs one promise
 * reaction per event. These tests pin that the stack behaves exactly as the
 * same stack does when no layer can see that the layer under it is one of
 * ours (each pulled through a forwarding object, so with `next().then`):
 * the same scripted sources, observations and consumer calls must give the
 * same answers and the same order of everything the layers did.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Delegation, PassThroughGenerator } from '../../../src/core/fast-path/pass-through';
import { createStage, MiddlewareRegistry } from '../../../src/core/index';
import type { Terminal } from '../../../src/core/index';
import { consumerCalls, makeCall, type ConsumerCall } from '../../agent/consumer-calls';
import { observations, observeAs, type Observation } from '../../agent/observations';

/** What the source does at each pull: give its next event, or fail. */
type SourceStep = 'event' | 'fail';
/**
 * One layer of the stack: a pass-through generator; an invoke passing events on; one holding result candidates back for an Output
 * handler (its guard takes every event but the source's second and fourth, which go out behind a held one); one
 * whose Wrap handler calls `next()`, so that it closes an inner chain before it ends.
 */
type Layer = 'passThrough' | 'invoke' | 'holdingInvoke' | 'wrappedInvoke';

interface Scenario {
  readonly layers: readonly Layer[];
  readonly steps: readonly SourceStep[];
  readonly closeFails: boolean;
  readonly observations: readonly Observation[];
  readonly actions: readonly ConsumerCall[];
}

const Passing = createStage<unknown, string, string>('directPullPassing');
const Holding = createStage<unknown, string, string>('directPullHolding', {
  isResult: (event): event is string => !/^e[13]/.test(event),
});
const Wrapped = createStage<unknown, string, string>('directPullWrapped');

/** The stack's source: logs its end; its closing may fail. */
async function* source(steps: readonly SourceStep[], closeFails: boolean, log: string[]): AsyncGenerator<string, void, undefined> {
  try {
    for (const [index, step] of steps.entries()) {
      if (step === 'fail') throw new Error(`source failed at ${index}`);
      yield `e${index}`;
    }
  } finally {
    log.push('source ended');
    // eslint-disable-next-line no-unsafe-finally -- the point: a source whose closing fails
    if (closeFails) throw new Error('source failed to close');
  }
}

/** The observation of the n-th event a pass-through generator of the stack observes, as the scenario says. */
function observer(scenario: Scenario, level: number, log: string[]): (event: string) => string | Promise<string> {
  let count = 0;
  return (event) => {
    const observation = scenario.observations[(count++ + level) % Math.max(1, scenario.observations.length)] ?? 'pass';
    log.push(`pass-through generator ${level} observed ${event}`);
    return observeAs(observation, event, `pass-through generator ${level}`);
  };
}

/** `events` behind an object of no class of ours, so that the layer above pulls it with `next().then`. */
function forwarding(events: AsyncGenerator<string, void, undefined>): AsyncGenerator<string, void, undefined> {
  const forwarded = {
    [Symbol.asyncIterator]: () => forwarded,
    next: () => events.next(),
    return: (value?: unknown) => events.return(value as undefined),
    throw: (error: unknown) => events.throw(error),
    [Symbol.asyncDispose]: () => events[Symbol.asyncDispose](),
  };
  return forwarded;
}

/** A pass-through generator whose generator yields an event of its own, passes `inner` on, and yields another when it ends. */
function passThroughOver(inner: AsyncGenerator<string, void, undefined>, level: number, scenario: Scenario, log: string[]) {
  const observe = observer(scenario, level, log);
  return new PassThroughGenerator<string>(
    (async function* delegating() {
      try {
        yield `pass-through generator ${level} began`;
        yield new Delegation(inner, observe);
        yield `pass-through generator ${level} passed`;
      } catch (error) {
        log.push(`pass-through generator ${level} caught ${(error as Error).message}`);
        throw error;
      } finally {
        log.push(`pass-through generator ${level} ended`);
      }
    })(),
  );
}

/** An invoke whose terminal hands the layer below on, as `layer` says (see {@link Layer}). */
function invokeOver(inner: AsyncGenerator<string, void, undefined>, layer: Exclude<Layer, 'passThrough'>, log: string[]) {
  const registry = new MiddlewareRegistry();
  // How each invoke ends, which the layer above cannot see for itself.
  registry.instrument({ name: 'ends', invoke: (info) => ({ end: (outcome) => void log.push(`${info.stage.name} ${outcome.status}`) }) });
  registry.add(Holding.Output, function logResult(result) {
    log.push(`output of ${result.value}`);
    return result;
  });
  registry.add(Wrapped.Wrap, async function* passOn(_context, next) {
    yield* next();
  });
  const terminal: Terminal<unknown, string> = () => inner;
  return registry.invoke(layer === 'holdingInvoke' ? Holding : layer === 'wrappedInvoke' ? Wrapped : Passing, {}, terminal);
}

/** The scenario's stack, bottom up; `fused` leaves each layer to see that the one under it is ours. */
function stack(scenario: Scenario, fused: boolean, log: string[]): AsyncGenerator<string, void, undefined> {
  let events = source(scenario.steps, scenario.closeFails, log);
  for (const [level, layer] of scenario.layers.entries()) {
    const inner = fused ? events : forwarding(events);
    events = layer === 'passThrough' ? passThroughOver(inner, level, scenario, log) : invokeOver(inner, layer, log);
  }
  return events;
}

/** Runs the scenario's calls; returns what the consumer saw and, interleaved, what the layers did. */
async function run(scenario: Scenario, fused: boolean): Promise<string[]> {
  const log: string[] = [];
  const events = stack(scenario, fused, log);
  for (const action of scenario.actions) await makeCall(events, action, log);
  return log;
}

const scenarios: fc.Arbitrary<Scenario> = fc.record({
  layers: fc.array(fc.constantFrom<Layer>('passThrough', 'invoke', 'holdingInvoke', 'wrappedInvoke'), {
    minLength: 2,
    maxLength: 4,
  }),
  steps: fc.array(
    fc.oneof({ weight: 6, arbitrary: fc.constant<SourceStep>('event') }, { weight: 1, arbitrary: fc.constant<SourceStep>('fail') }),
    { maxLength: 5 },
  ),
  closeFails: fc.boolean(),
  observations,
  actions: consumerCalls,
});

/** How many promise-job turns pass while `pending` settles: a counter that goes on a turn at a time until it does. */
async function turnsUntil(pending: Promise<unknown>): Promise<number> {
  const state = { settled: false };
  const settle = (): void => {
    state.settled = true;
  };
  pending.then(settle, settle);
  let turns = 0;
  for (; !state.settled; turns++) await Promise.resolve();
  return turns;
}

describe('a stack of our iterators, each pulling the one under it through nextInto', () => {
  it('cannot be told from the same stack pulled with next().then, whatever the layers, sources, observations and calls', async () => {
    await fc.assert(
      fc.asyncProperty(scenarios, async (scenario) => {
        expect(await run(scenario, true)).toEqual(await run(scenario, false));
      }),
      { numRuns: 400 },
    );
  });

  it('delivers each event through pass-through generators and invokes, observed on the way, and the ends of each layer in order', async () => {
    const scenario: Scenario = {
      layers: ['invoke', 'passThrough', 'holdingInvoke', 'passThrough'],
      steps: ['event', 'event'],
      closeFails: false,
      observations: ['pass', 'replace'],
      actions: Array<ConsumerCall>(7).fill('next'),
    };
    expect(await run(scenario, true)).toEqual([
      'event pass-through generator 3 began',
      // The holding invoke holds each candidate back until the next event comes, so pass-through generator 1 sees e0 before pass-through generator 3 sees what came before it.
      'pass-through generator 1 observed e0',
      'pass-through generator 3 observed pass-through generator 1 began',
      "event pass-through generator 1 began'",
      // e1 is no candidate: the held e0' goes out, and e1 behind it at the next pull.
      'pass-through generator 1 observed e1',
      "pass-through generator 3 observed e0'",
      "event e0'",
      'pass-through generator 3 observed e1',
      "event e1'",
      'source ended',
      // A pass-mode invoke settles before it answers the end.
      'directPullPassing success',
      'pass-through generator 1 ended',
      'output of pass-through generator 1 passed',
      // A holding one, after its Output phase and before it delivers the final event.
      'directPullHolding success',
      'pass-through generator 3 observed pass-through generator 1 passed',
      'event pass-through generator 1 passed',
      'event pass-through generator 3 passed',
      'pass-through generator 3 ended',
      'done undefined',
    ]);
  });

  it('passes an event through a pass-through generator, an invoke and a pass-through generator in fewer promise-job turns than with next().then', async () => {
    const scenario: Scenario = {
      layers: ['invoke', 'passThrough', 'invoke', 'passThrough'],
      steps: ['event', 'event', 'event'],
      closeFails: false,
      observations: [],
      actions: [],
    };
    const turns = async (fused: boolean): Promise<number> => {
      const events = stack(scenario, fused, []);
      // Past each layer's start, to the pull of an event in the middle of the source: the per-event path.
      for (let pulled = 0; pulled < 3; pulled++) await events.next();
      const counted = await turnsUntil(events.next());
      await events.return(undefined);
      return counted;
    };
    const [fused, unfused] = [await turns(true), await turns(false)];
    // Three of the four layers answer in the reaction of the layer under them: three reactions fewer, at least.
    expect(unfused - fused).toBeGreaterThanOrEqual(3);
  });
});
