/**
 * The agent's run and turn loop hand the events of their stage invokes to a
 * pass-through generator, for speed; these tests pin that a pass-through generator behaves exactly
 * as the same generator would with a `for await` loop yielding each observed
 * event. The same scripted sources (failing at any event, failing to close),
 * observations (throwing, waiting, rejecting, replacing the event) and
 * consumer calls (pulls, concurrent pulls, `return()`, `throw()`) go through
 * both, and what the consumer sees and the order of everything the
 * generator and the sources did must be the same.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Delegation, PassThroughGenerator } from '../../../src/core/fast-path/pass-through';
import { consumerCalls, makeCall, type ConsumerCall } from '../../agent/consumer-calls';
import { observations, observeAs, type Observation } from '../../agent/observations';

/** What one source does at each pull: give its next event, or fail. */
type SourceStep = 'event' | 'fail';

interface Scenario {
  readonly sources: readonly (readonly SourceStep[])[];
  readonly closeFails: boolean;
  readonly observations: readonly Observation[];
  readonly actions: readonly ConsumerCall[];
}

/** A source of events that logs its end, and whose closing may fail. */
async function* source(
  name: string,
  steps: readonly SourceStep[],
  closeFails: boolean,
  log: string[],
): AsyncGenerator<string, void, undefined> {
  try {
    for (const [index, step] of steps.entries()) {
      if (step === 'fail') throw new Error(`${name} failed at ${index}`);
      yield `${name}${index}`;
    }
  } finally {
    log.push(`${name} ended`);
    // eslint-disable-next-line no-unsafe-finally -- the point: a source whose closing fails
    if (closeFails) throw new Error(`${name} failed to close`);
  }
}

/** The observation of the n-th event observed in the run, as the scenario says. */
function observer(scenario: Scenario, log: string[]): (event: string) => string | Promise<string> {
  let count = 0;
  return (event) => {
    const observation = scenario.observations[count++ % Math.max(1, scenario.observations.length)] ?? 'pass';
    log.push(`observed ${event}`);
    return observeAs(observation, event, 'the pass-through generator');
  };
}

/** The generator under both forms: events of its own around two stretches of pass-through, and an error it recovers from. */
async function* body(
  scenario: Scenario,
  log: string[],
  passOn: (events: AsyncGenerator<string, void, undefined>) => AsyncGenerator<string | Delegation<string>, void, undefined>,
): AsyncGenerator<string | Delegation<string>, void, undefined> {
  try {
    yield 'start';
    for (const [index, steps] of scenario.sources.entries()) {
      try {
        yield* passOn(source(`s${index}-`, steps, scenario.closeFails, log));
      } finally {
        log.push(`stretch ${index} left`);
      }
      yield `between ${index}`;
    }
  } catch (error) {
    log.push(`caught ${(error as Error).message}`);
    yield 'recovered';
  } finally {
    log.push('generator ended');
  }
}

/** The passed-through form: one delegation per stretch. */
function passedThrough(scenario: Scenario, log: string[]): AsyncGenerator<string, void, undefined> {
  const observe = observer(scenario, log);
  return new PassThroughGenerator(
    body(scenario, log, async function* handOver(events) {
      yield new Delegation(events, observe);
    }),
  );
}

/** The plain form, the oracle: a for await yielding each observed event. */
function looped(scenario: Scenario, log: string[]): AsyncGenerator<string, void, undefined> {
  const observe = observer(scenario, log);
  return body(scenario, log, async function* loop(events) {
    for await (const event of events) yield observe(event);
  }) as AsyncGenerator<string, void, undefined>;
}

/** Runs the scenario's calls; returns what the consumer saw and, interleaved, what the generator and sources did. */
async function observe(
  form: (scenario: Scenario, log: string[]) => AsyncGenerator<string, void, undefined>,
  scenario: Scenario,
): Promise<string[]> {
  const log: string[] = [];
  const events = form(scenario, log);
  for (const action of scenario.actions) await makeCall(events, action, log);
  return log;
}

const scenarios: fc.Arbitrary<Scenario> = fc.record({
  sources: fc.array(
    fc.array(
      fc.oneof({ weight: 5, arbitrary: fc.constant<SourceStep>('event') }, { weight: 1, arbitrary: fc.constant<SourceStep>('fail') }),
      { maxLength: 4 },
    ),
    {
      minLength: 1,
      maxLength: 2,
    },
  ),
  closeFails: fc.boolean(),
  observations,
  actions: consumerCalls,
});

describe('a pass-through generator', () => {
  it('cannot be told from the same generator looping over its sources, whatever the sources, observations and calls', async () => {
    await fc.assert(
      fc.asyncProperty(scenarios, async (scenario) => {
        expect(await observe(passedThrough, scenario)).toEqual(await observe(looped, scenario));
      }),
      { numRuns: 500 },
    );
  });

  it('delivers the events of a delegation as observed, then resumes the generator', async () => {
    const scenario: Scenario = {
      sources: [['event', 'event']],
      closeFails: false,
      observations: ['pass', 'replace'],
      actions: Array<ConsumerCall>(6).fill('next'),
    };
    expect(await observe(passedThrough, scenario)).toEqual([
      'event start',
      'observed s0-0',
      'event s0-0',
      'observed s0-1',
      "event s0-1'",
      's0- ended',
      'stretch 0 left',
      'event between 0',
      'generator ended',
      'done undefined',
      'done undefined',
    ]);
  });

  it('closes the source before the generator when the consumer returns during a delegation', async () => {
    const scenario: Scenario = { sources: [['event', 'event']], closeFails: false, observations: [], actions: ['next', 'next', 'return'] };
    expect(await observe(passedThrough, scenario)).toEqual([
      'event start',
      'observed s0-0',
      'event s0-0',
      's0- ended',
      'stretch 0 left',
      'generator ended',
      'done returned',
    ]);
  });
});
