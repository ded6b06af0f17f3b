import { describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../../src/agent/index';
import type { AiSdkStreamReader, AiSdkStreamResult } from '../../src/ai-sdk/ai-sdk-types';
import { release, ResponseStream } from '../../src/ai-sdk/response-stream';
import { ResponseParts } from '../../src/ai-sdk/stream-parts';
import type { SerialAsyncGenerator } from '../../src/core/internal';

/** The generator the hand-written iterator replaces, as its header gives it: the oracle. */
async function* generatorResponse(
  call: () => PromiseLike<AiSdkStreamResult>,
  signal: AbortSignal,
): AsyncGenerator<ModelStreamEvent, void, undefined> {
  if (signal.aborted) throw signal.reason;
  const reader = (await call()).stream.getReader();
  const cancel = (): void => {
    release(reader, signal.reason);
  };
  signal.addEventListener('abort', cancel, { once: true });
  let ended = false;
  try {
    yield { type: 'messageStart', role: 'assistant' };
    const parts = new ResponseParts();
    for (;;) {
      const read = await reader.read();
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal can abort while the read is pending
      if (signal.aborted) throw signal.reason;
      if (read.done) break;
      const events: ModelStreamEvent[] = [];
      parts.read(read.value, events);
      yield* events;
    }
    ended = true;
  } finally {
    signal.removeEventListener('abort', cancel);
    if (!ended) release(reader, undefined);
    try {
      reader.releaseLock();
    } catch {
      // As the adapter: nothing left to release.
    }
  }
}

/** What a read answers in a scenario: a part, the end, a failure, or a read left pending until the signal aborts. */
type Step = { part: unknown } | 'end' | { fail: string } | 'hang';

/** How a scenario drives the stream. */
interface Scenario {
  readonly steps: readonly Step[];
  /** Pulls before the consumer stops: `return` or `throw` it, or abort the signal while the next pull is pending. */
  readonly pulls: number;
  readonly then?: 'return' | 'throw' | 'abort';
  readonly abortedBefore?: boolean;
  readonly callFails?: boolean;
}

const TEXT = (delta: string): Step => ({ part: { type: 'text-delta', id: 't', delta } });
const FINISH: Step = {
  part: { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' }, usage: { inputTokens: 1, outputTokens: 2 } },
};

/**
 * Runs a scenario on one implementation; everything observable, in order. `direct`: each pull is made as an iterator
 * of ours makes it (`nextInto`, an invoke pulling its terminal), which behaves as `next().then(...)`.
 */
async function observe(
  make: (call: () => PromiseLike<AiSdkStreamResult>, signal: AbortSignal) => AsyncGenerator<ModelStreamEvent, void, undefined>,
  scenario: Scenario,
  direct = false,
): Promise<unknown[]> {
  const log: unknown[] = [];
  const controller = new AbortController();
  if (scenario.abortedBefore === true) controller.abort(new Error('aborted before'));
  let step = 0;
  let hung: ((value: { done: boolean }) => void) | undefined;
  const reader: AiSdkStreamReader = {
    read() {
      const next = scenario.steps[step++] ?? 'end';
      log.push(`read ${step}`);
      if (next === 'end') return Promise.resolve({ done: true });
      if (next === 'hang') return new Promise((resolve) => (hung = resolve));
      if ('fail' in next) return Promise.reject(new Error(next.fail));
      return Promise.resolve({ done: false, value: next.part });
    },
    cancel(reason) {
      log.push(['cancel', reason instanceof Error ? reason.message : reason]);
      hung?.({ done: true });
      return Promise.resolve();
    },
    releaseLock() {
      log.push('releaseLock');
    },
  };
  const call = (): PromiseLike<AiSdkStreamResult> => {
    log.push('call');
    return scenario.callFails === true
      ? Promise.reject(new Error('provider down'))
      : Promise.resolve({ stream: { getReader: () => reader } });
  };
  const stream = make(call, controller.signal);
  const settle = async (promise: Promise<IteratorResult<ModelStreamEvent, void>>): Promise<void> => {
    try {
      log.push(await promise);
    } catch (error) {
      log.push(['rejected', (error as Error).message]);
    }
  };
  const next = (): Promise<IteratorResult<ModelStreamEvent, void>> =>
    direct
      ? (stream as unknown as SerialAsyncGenerator<ModelStreamEvent>).nextInto(
          (answer) => answer,
          (error: unknown) => {
            throw error;
          },
        )
      : stream.next();
  for (let pull = 0; pull < scenario.pulls; pull++) await settle(next());
  if (scenario.then === 'return') await settle(stream.return());
  if (scenario.then === 'throw') await settle(stream.throw(new Error('stopped')));
  if (scenario.then === 'abort') {
    const pending = next();
    await new Promise((resolve) => setTimeout(resolve, 0));
    controller.abort(new Error('cancelled'));
    await settle(pending);
  }
  await settle(next());
  return log;
}

const SCENARIOS: readonly [string, Scenario][] = [
  ['a whole response', { steps: [{ part: { type: 'stream-start' } }, TEXT('Hi'), TEXT(''), TEXT(' there'), FINISH, 'end'], pulls: 6 }],
  [
    'a tool call that becomes two events',
    {
      steps: [
        { part: { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{"id":1}' } },
        { part: { type: 'finish', finishReason: { unified: 'tool-calls' } } },
      ],
      pulls: 6,
    },
  ],
  ['an error part', { steps: [TEXT('Hi'), { part: { type: 'error', error: new Error('overloaded') } }], pulls: 4 }],
  ['a read that fails', { steps: [TEXT('Hi'), { fail: 'socket closed' }], pulls: 4 }],
  ['a finish with reason error', { steps: [TEXT('Hi'), { part: { type: 'finish', finishReason: 'error' } }], pulls: 4 }],
  ['a return after the message start', { steps: [TEXT('Hi')], pulls: 1, then: 'return' }],
  [
    'a return between the two events of a part',
    { steps: [{ part: { type: 'tool-call', toolCallId: 'c1', toolName: 'x', input: '{}' } }], pulls: 2, then: 'return' },
  ],
  ['a return before the first pull', { steps: [TEXT('Hi')], pulls: 0, then: 'return' }],
  ['a throw in the middle', { steps: [TEXT('Hi'), TEXT('!')], pulls: 2, then: 'throw' }],
  ['a throw before the first pull', { steps: [TEXT('Hi')], pulls: 0, then: 'throw' }],
  ['an abort while a read hangs', { steps: [TEXT('Hi'), 'hang'], pulls: 2, then: 'abort' }],
  ['a signal aborted before the call', { steps: [TEXT('Hi')], pulls: 1, abortedBefore: true }],
  ['a provider call that fails', { steps: [], pulls: 1, callFails: true }],
];

describe('ResponseStream', () => {
  describe('against the generator it replaces', () => {
    it.each(SCENARIOS)('behaves as the generator for %s', async (_name, scenario) => {
      const ours = await observe((call, signal) => new ResponseStream(call, signal), scenario);
      expect(ours).toEqual(await observe(generatorResponse, scenario));
    });

    it.each(SCENARIOS)('behaves as the generator for %s, pulled by an iterator of ours (nextInto)', async (_name, scenario) => {
      const ours = await observe((call, signal) => new ResponseStream(call, signal), scenario, true);
      expect(ours).toEqual(await observe(generatorResponse, scenario));
    });

    it('answers with the events in order, then ends (the oracle is not vacuous)', async () => {
      const log = await observe((call, signal) => new ResponseStream(call, signal), (SCENARIOS[0] as [string, Scenario])[1]);
      expect(log.filter((entry) => typeof entry === 'object' && entry !== null && 'done' in entry)).toEqual([
        { value: { type: 'messageStart', role: 'assistant' }, done: false },
        { value: { type: 'textDelta', text: 'Hi' }, done: false },
        { value: { type: 'textDelta', text: ' there' }, done: false },
        { value: { type: 'usage', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } }, done: false },
        { value: { type: 'messageStop', stopReason: 'endTurn' }, done: false },
        { value: undefined, done: true },
        { value: undefined, done: true },
      ]);
    });
  });
});
