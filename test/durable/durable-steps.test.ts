/**
 * The durable layer on the stages alone, as a framework's own loop uses it
 * (MW-242 – MW-252): a terminal runs once as a step, its events stream live
 * in their journal form, a replay yields them without calling it, a refused
 * value records nothing, tool calls carry their idempotency key, and a
 * halted tool call becomes durable waits with `awaitInterrupts`.
 */
import { describe, expect, it } from 'vitest';
import { MiddlewareRegistry, MiddlewareError } from '../../src/core/index';
import {
  ExecuteToolStage,
  InterruptSignal,
  InvokeModelStage,
  createInterrupt,
  toolTerminal,
  type ExecuteToolContext,
  type InvokeModelContext,
  type InvokeModelEvent,
  type Tool,
} from '../../src/agent/index';
import { awaitInterrupts, durableSteps, InMemoryJournal, type StepRunner } from '../../src/durable/index';
import { retry } from '../../src/middleware/index';

const modelContext = {
  model: { stream: () => (async function* () {})() },
  messages: [],
  systemPrompt: [],
  toolSpecs: [],
  invocationState: {},
} as unknown as InvokeModelContext;

const result = {
  type: 'modelResult',
  message: { role: 'assistant', content: [{ type: 'text', text: 'Hi' }] },
  stopReason: 'endTurn',
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
} as const;

/** A model terminal yielding `events` then the result, counting its calls. */
function countingTerminal(events: readonly unknown[]): { calls: number; terminal: () => AsyncGenerator<InvokeModelEvent> } {
  const counter = {
    calls: 0,
    async *terminal(): AsyncGenerator<InvokeModelEvent> {
      counter.calls += 1;
      for (const event of events) yield event as InvokeModelEvent;
      yield result;
    },
  };
  return counter;
}

/** Every event of one InvokeModelStage invoke with the durable layer of `runner`. */
async function invokeModel(runner: StepRunner, terminal: () => AsyncGenerator<InvokeModelEvent>, registry = new MiddlewareRegistry()) {
  registry.use(durableSteps(runner));
  const events: unknown[] = [];
  for await (const event of registry.invoke(InvokeModelStage, modelContext, terminal)) events.push(event);
  return events;
}

describe('durableSteps', () => {
  describe('a model call run live, then replayed in a new process', () => {
    it('calls the terminal once and yields the same JSON-form events both times', async () => {
      const journal = new InMemoryJournal();
      const model = countingTerminal([{ type: 'textDelta', text: 'Hi', at: new Date(0), skipped: undefined }]);
      const live = await invokeModel(journal.runner('r'), () => model.terminal());
      const replayed = await invokeModel(journal.runner('r'), () => model.terminal());
      const expected = [{ type: 'textDelta', text: 'Hi', at: '1970-01-01T00:00:00.000Z' }, result];
      expect([live, replayed, model.calls]).toEqual([expected, expected, 1]);
      expect(replayed.every((event) => Object.isFrozen(event))).toBe(true);
      expect(journal.entries('r').map((entry) => entry.name)).toEqual(['invokeModel:1']);
    });
  });

  describe('a model call whose event has no JSON form', () => {
    it('fails with ERR_NOT_JOURNALABLE naming the part, and records nothing', async () => {
      const journal = new InMemoryJournal();
      const model = countingTerminal([{ type: 'usage', tokens: 1n }]);
      const error = await invokeModel(journal.runner('r'), () => model.terminal()).catch((thrown: unknown) => thrown);
      expect(MiddlewareError.isInstance(error)).toBe(true);
      expect({
        code: (error as MiddlewareError).code,
        stage: (error as MiddlewareError).stage,
        handler: (error as MiddlewareError).handler,
      }).toEqual({
        code: 'ERR_NOT_JOURNALABLE',
        stage: 'invokeModel',
        handler: 'durableSteps',
      });
      expect((error as Error).message).toContain('events[0].tokens is a BigInt');
      expect(journal.entries('r')).toEqual([]);
    });
  });

  describe('a model call that throws, retried by the library around the layer', () => {
    it('records each attempt as its own step and replays the failure to the retry without calling the model', async () => {
      const journal = new InMemoryJournal();
      const failure = new Error('overloaded');
      let calls = 0;
      async function* flaky(): AsyncGenerator<InvokeModelEvent> {
        calls += 1;
        if (calls === 1) throw failure;
        yield result;
      }
      const seen: unknown[] = [];
      const registryWithRetry = (): MiddlewareRegistry => {
        const registry = new MiddlewareRegistry();
        registry.add(InvokeModelStage.Wrap, retry({ attempts: 2, backoff: () => 0, onRetry: ({ error }) => void seen.push(error) }));
        return registry;
      };
      await invokeModel(journal.runner('r'), flaky, registryWithRetry());
      await invokeModel(journal.runner('r'), flaky, registryWithRetry());
      expect(calls).toBe(2);
      expect(seen[0]).toBe(failure);
      expect([seen.length, (seen[1] as Error).message, (seen[1] as Error).name, seen[1] === failure]).toEqual([
        2,
        'overloaded',
        'Error',
        false,
      ]);
      expect(journal.entries('r').map((entry) => entry.name)).toEqual(['invokeModel:1', 'invokeModel:2']);
    });
  });

  describe('a consumer that stops reading in the middle of a live step', () => {
    it('leaves the step unfinished: nothing is recorded and the next process runs it again', async () => {
      const journal = new InMemoryJournal();
      const model = countingTerminal([
        { type: 'textDelta', text: 'a' },
        { type: 'textDelta', text: 'b' },
      ]);
      const registry = new MiddlewareRegistry();
      registry.use(durableSteps(journal.runner('r')));
      for await (const _event of registry.invoke(InvokeModelStage, modelContext, () => model.terminal())) break;
      expect(journal.entries('r')).toEqual([]);
      const events = await invokeModel(journal.runner('r'), () => model.terminal());
      expect([events.map((event) => (event as { type: string }).type), model.calls]).toEqual([
        ['attempt-boundary', 'textDelta', 'textDelta', 'modelResult'],
        2,
      ]);
      expect(events[0]).toEqual({
        type: 'attempt-boundary',
        handler: 'durableSteps',
        failedAttempt: 1,
        nextAttempt: 2,
        error: expect.objectContaining({ name: 'StepAttemptLost' }),
      });
    });
  });

  describe('a tool call in a framework loop', () => {
    it('gives the tool the idempotency key <runId>:<toolUseId>, and turns a halt into waits answered from outside', async () => {
      const journal = new InMemoryJournal();
      const keys: unknown[] = [];
      const pay: Tool = {
        spec: { name: 'pay', description: 'Pays.', inputSchema: {} },
        run(_input, context) {
          keys.push(context.idempotencyKey);
          return context.interrupt({ name: 'approve', reason: 'Pays 5' }).response;
        },
      };
      const runner = journal.runner('order-9');
      const registry = new MiddlewareRegistry();
      registry.use(durableSteps(runner));
      const callTool = async (responses: ReadonlyMap<string, unknown>): Promise<unknown[]> => {
        const context: ExecuteToolContext = {
          tool: pay,
          toolUse: { name: 'pay', toolUseId: 't1', input: {} },
          invocationState: {},
          signal: new AbortController().signal,
          interrupt: createInterrupt(ExecuteToolStage.name, 't1', responses),
        };
        const events: unknown[] = [];
        for await (const event of registry.invoke(ExecuteToolStage, context, toolTerminal)) events.push(event);
        return events;
      };
      const halt = await callTool(new Map()).catch((thrown: unknown) => thrown);
      expect(InterruptSignal.isInstance(halt)).toBe(true);
      const answers = awaitInterrupts(runner, (halt as InterruptSignal).interrupts);
      await Promise.resolve();
      expect(journal.waiting('order-9')).toEqual([
        { name: 'executeTool:t1:approve', request: { id: 'executeTool:t1:approve', name: 'approve', reason: 'Pays 5' } },
      ]);
      await journal.send('order-9', 'executeTool:t1:approve', 'yes');
      const responses = await answers;
      expect(responses).toEqual({ 'executeTool:t1:approve': 'yes' });
      const events = await callTool(new Map(Object.entries(responses)));
      expect(events).toEqual([
        {
          type: 'toolResult',
          toolResult: { type: 'toolResult', toolUseId: 't1', name: 'pay', status: 'success', content: [{ type: 'text', text: 'yes' }] },
        },
      ]);
      expect(keys).toEqual(['order-9:t1', 'order-9:t1']);
      expect(journal.entries('order-9').map((entry) => `${entry.kind} ${entry.name}`)).toEqual([
        'step executeTool:0:t1',
        'wait executeTool:t1:approve',
        'step executeTool:0:t1#2',
      ]);
    });
  });

  describe('given something other than a step runner', () => {
    it.each([[undefined], [{ runId: 'r', run() {} }], [{ runId: '', run() {}, wait() {} }]])(
      'throws ERR_INVALID_OPTIONS for %j',
      (runner) => {
        expect(() => durableSteps(runner as unknown as StepRunner)).toThrow(
          expect.objectContaining({ code: 'ERR_INVALID_OPTIONS', phase: 'register', handler: 'durableSteps' }),
        );
      },
    );
  });
});
