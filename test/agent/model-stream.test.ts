/**
 * The model terminal is a hand-written iterator for speed; these tests pin
 * that its consumer cannot tell it from the async generator it replaced. The
 * oracle below is that generator, written the plain way: the same scripted
 * model (failing, slow, yielding thenables or a usage no result can hold, at
 * any event) and the same consumer calls (pulls, concurrent pulls,
 * `return()`, `throw()`, aborts between pulls and while a pull waits) go
 * through both, and what the consumer sees, what the model sees and the
 * listeners left must be the same.
 */
import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvokeModelStage, modelTerminal, type InvokeModelContext, type InvokeModelEvent } from '../../src/agent/index';
import { AbortRace } from '../../src/agent/tools/abort-race';
import { MessageAssembly } from '../../src/agent/model/message-assembly';
import type { TerminalCall } from '../../src/core/index';
import { makeCall, seen } from './consumer-calls';
import { scriptedModel, type Action, type Closing, type ModelLog, type Scenario, type Step } from './scripted-stream';

/** The model terminal as an async generator: the oracle. */
async function* generatorTerminal(
  context: InvokeModelContext,
  run: TerminalCall<unknown>,
): AsyncGenerator<InvokeModelEvent, void, undefined> {
  const { signal } = run;
  if (signal.aborted) throw signal.reason;
  const model = context.model;
  const iterator = (model.stream({} as never, { signal, state: undefined }) as AsyncIterable<never>)[Symbol.asyncIterator]();
  const assembly = new MessageAssembly();
  const race = new AbortRace(signal);
  let finished = false;
  try {
    for (;;) {
      let step: IteratorResult<never>;
      try {
        step = await race.wait(iterator.next());
      } catch (error) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- signal.aborted changes while the wait is pending
        if (!signal.aborted) finished = true;
        throw error;
      }
      if (step.done === true) {
        finished = true;
        break;
      }
      const event = step.value;
      assembly.add(event);
      yield event;
    }
  } finally {
    race.dispose();
    if (!finished && typeof iterator.return === 'function') {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- signal.aborted changes while the loop awaits
      if (signal.aborted) iterator.return().catch(() => undefined);
      else await iterator.return();
    }
  }
  yield assembly.result();
}

/** Lets every pending promise job and timer of the run settle (a slow step takes 2 ms). */
const settled = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

/** What one run of a scenario showed. */
interface Observed {
  /** What the consumer saw of each call. */
  readonly consumer: string[];
  /** What the model was asked. */
  readonly model: ModelLog;
  /** The abort listeners left on the signal. */
  readonly listeners: number;
  /** The errors no one handled: rejections and exceptions that escaped the terminal, as their messages. */
  readonly escaped: string[];
}

/** Runs a scenario through a terminal, as `runScenario` does, and also collects the errors that escaped meanwhile. */
async function observe(
  terminal: (context: InvokeModelContext, run: TerminalCall<unknown>) => AsyncGenerator<InvokeModelEvent, void, undefined>,
  scenario: Scenario,
): Promise<Observed> {
  const escaped: string[] = [];
  const onEscape = (error: unknown): void => {
    escaped.push(String((error as Error | undefined)?.message ?? error));
  };
  process.on('unhandledRejection', onEscape);
  process.on('uncaughtException', onEscape);
  try {
    return { ...(await runScenario(terminal, scenario)), escaped };
  } finally {
    process.off('unhandledRejection', onEscape);
    process.off('uncaughtException', onEscape);
  }
}

/** Runs a scenario through a terminal; returns what the consumer and the model saw, and the listeners left. */
async function runScenario(
  terminal: (context: InvokeModelContext, run: TerminalCall<unknown>) => AsyncGenerator<InvokeModelEvent, void, undefined>,
  scenario: Scenario,
): Promise<Omit<Observed, 'escaped'>> {
  const model: ModelLog = [];
  const controller = new AbortController();
  const context: InvokeModelContext = {
    model: scriptedModel(scenario, model),
    messages: [],
    systemPrompt: [],
    toolSpecs: [],
    invocationState: {},
  };
  const events = terminal(context, { stage: InvokeModelStage, signal: controller.signal, state: undefined });
  const consumer: string[] = [];
  for (const action of scenario.actions) {
    if (action === 'abort') controller.abort(new Error('aborted'));
    else if (action === 'nextThenAbort') {
      const pulling = events.next();
      controller.abort(new Error('aborted while waiting'));
      consumer.push(seen((await Promise.allSettled([pulling]))[0] as PromiseSettledResult<IteratorResult<unknown>>));
    } else await makeCall(events, action, consumer);
  }
  await settled();
  return { consumer, model, listeners: getEventListeners(controller.signal, 'abort').length };
}

const scenarios: fc.Arbitrary<Scenario> = fc.record({
  steps: fc.array(
    fc.oneof(
      { weight: 6, arbitrary: fc.constant<Step>('event') },
      {
        weight: 1,
        arbitrary: fc.constantFrom<Step>(
          'reject',
          'throw',
          'plain',
          'null',
          'thenable',
          'thenableRejects',
          'unassemblable',
          'slow',
          'slowReject',
        ),
      },
    ),
    { maxLength: 6 },
  ),
  closing: fc.constantFrom<Closing>('resolves', 'rejects', 'missing'),
  actions: fc.array(
    fc.oneof(
      { weight: 6, arbitrary: fc.constant<Action>('next') },
      { weight: 1, arbitrary: fc.constantFrom<Action>('twoNexts', 'return', 'throw', 'abort', 'nextThenAbort') },
    ),
    { minLength: 1, maxLength: 9 },
  ),
});

describe('the model terminal, as its consumer sees it', () => {
  it('cannot be told from an async generator doing the same, whatever the model does and the consumer calls', async () => {
    await fc.assert(
      fc.asyncProperty(scenarios, async (scenario) => {
        const actual = await observe(modelTerminal, scenario);
        const expected = await observe(generatorTerminal, scenario);
        expect(actual).toEqual(expected);
      }),
      { numRuns: 400 },
    );
  });

  it('ends with the assembled result, then the end, and leaves no listener behind', async () => {
    const run = await observe(modelTerminal, { steps: ['event', 'event'], closing: 'resolves', actions: ['next', 'next', 'next', 'next'] });
    expect(run.consumer).toEqual([
      'event {"type":"textDelta","text":"word0 "}',
      'event {"type":"textDelta","text":"word1 "}',
      'event {"type":"modelResult","message":{"role":"assistant","content":[{"type":"text","text":"word0 word1 "}]},"stopReason":"endTurn","usage":{"inputTokens":0,"outputTokens":0,"totalTokens":0}}',
      'done undefined',
    ]);
    expect(run.listeners).toBe(0);
    expect(run.escaped).toEqual([]);
  });

  it('stops waiting for a slow model at once when the signal aborts, and requests its return()', async () => {
    const run = await observe(modelTerminal, { steps: ['event', 'slow'], closing: 'resolves', actions: ['next', 'nextThenAbort', 'next'] });
    expect(run).toEqual({
      consumer: ['event {"type":"textDelta","text":"word0 "}', 'error: aborted while waiting', 'done undefined'],
      model: ['stream', 'next 0', 'next 1', 'return'],
      listeners: 0,
      escaped: [],
    });
  });

  it('runs nothing before the first pull: return() then leaves the model uncalled', async () => {
    const run = await observe(modelTerminal, { steps: ['event'], closing: 'resolves', actions: ['return', 'next'] });
    expect(run).toEqual({ consumer: ['done returned', 'done undefined'], model: [], listeners: 0, escaped: [] });
  });

  it('requests the return() of a model whose next() throws once the signal aborted, and fails with its error', async () => {
    const scenario: Scenario = { steps: ['event', 'throw'], closing: 'resolves', actions: ['next', 'abort', 'next', 'next'] };
    const run = await observe(modelTerminal, scenario);
    expect(run).toEqual({
      consumer: ['event {"type":"textDelta","text":"word0 "}', 'error: model threw at 1', 'done undefined'],
      model: ['stream', 'next 0', 'next 1', 'return'],
      listeners: 0,
      escaped: [],
    });
    expect(await observe(generatorTerminal, scenario)).toEqual(run);
  });

  it("asks the model for its next event within the consumer's pull, as a generator does, after a thenable event too", async () => {
    const model: ModelLog = [];
    const context: InvokeModelContext = {
      model: scriptedModel({ steps: ['thenable', 'event'], closing: 'resolves', actions: [] }, model),
      messages: [],
      systemPrompt: [],
      toolSpecs: [],
      invocationState: {},
    };
    const events = modelTerminal(context, { stage: InvokeModelStage, signal: new AbortController().signal, state: undefined });
    const asked: ModelLog[] = [];
    for (let pull = 0; pull < 3; pull++) {
      const pulling = events.next();
      asked.push([...model]);
      await pulling;
    }
    expect(asked).toEqual([
      ['stream', 'next 0'],
      ['stream', 'next 0', 'next 1'],
      ['stream', 'next 0', 'next 1', 'next 2'],
    ]);
  });
});
