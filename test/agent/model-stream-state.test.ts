/**
 * The model terminal reports its own completion to the invoke's state
 * isolation, rather than being wrapped in a recorder: these tests pin that
 * the state written back is still that of the call that completed (MW-028,
 * MW-029), with a Wrap handler around the terminal.
 */
import { describe, expect, it } from 'vitest';
import { InvokeModelStage, modelTerminal, type InvokeModelContext, type InvokeModelEvent, type Model } from '../../src/agent/index';
import { MiddlewareRegistry } from '../../src/core/index';
import { reportCompletion, type CompletionReporting } from '../../src/core/state';

describe('the model terminal under a state binding, with a Wrap handler around it', () => {
  /** A model that counts its calls in the state it is given, then streams two events. */
  const countingModel: Model = {
    async *stream(_request, options) {
      const state = options.state as { calls: number; events: number };
      state.calls += 1;
      for (const text of ['a', 'b']) {
        state.events += 1;
        yield { type: 'textDelta', text };
      }
    },
  };

  /** The answer a handler gives in place of the model's. */
  const result = {
    type: 'modelResult',
    message: { role: 'assistant', content: [] },
    stopReason: 'endTurn',
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  };

  /** A model that counts its call in the state it is given, then fails before its first event. */
  const failingModel: Model = {
    async *stream(_request, options) {
      (options.state as { calls: number }).calls += 1;
      throw new Error('model unavailable');
    },
  };

  /** Runs one InvokeModelStage invoke with `wrap` as its Wrap handler; returns the state written back, if any. */
  async function writtenBack(wrap: Parameters<MiddlewareRegistry['add']>[1], model: Model = countingModel): Promise<unknown> {
    const registry = new MiddlewareRegistry();
    registry.add(InvokeModelStage.Wrap, wrap as never);
    let written: unknown = 'nothing written';
    const context: InvokeModelContext = { model, messages: [], systemPrompt: [], toolSpecs: [], invocationState: {} };
    const events = registry.invoke(InvokeModelStage, context, modelTerminal, {
      state: { get: () => ({ calls: 0, events: 0 }), set: (next) => void (written = next) },
    });
    for await (const _event of events);
    return written;
  }

  it('writes back the state of the call that completed', async () => {
    expect(
      await writtenBack(async function* passThrough(_context: unknown, next: () => AsyncIterable<InvokeModelEvent>) {
        yield* next();
      }),
    ).toEqual({ calls: 1, events: 2 });
  });

  it('writes back the state of the call that completed, not of one the handler closed before it', async () => {
    expect(
      await writtenBack(async function* retryAfterOne(_context: unknown, next: () => AsyncGenerator<InvokeModelEvent>) {
        const first = next();
        await first.next();
        await first.return(undefined);
        yield* next();
      }),
    ).toEqual({ calls: 1, events: 2 });
  });

  it('writes nothing back when the only call was closed after its result, before its end', async () => {
    expect(
      await writtenBack(async function* stopAtResult(_context: unknown, next: () => AsyncGenerator<InvokeModelEvent>) {
        const call = next();
        for (let pulled = await call.next(); pulled.done !== true && pulled.value.type !== 'modelResult'; pulled = await call.next());
        await call.return(undefined);
        yield result as InvokeModelEvent;
      }),
    ).toBe('nothing written');
  });

  it('writes nothing back when the only call failed, even when the handler pulls it again after the failure', async () => {
    const pulls: string[] = [];
    expect(
      await writtenBack(async function* pullAfterFailure(_context: unknown, next: () => AsyncGenerator<InvokeModelEvent>) {
        const call = next();
        await call.next().catch((error: unknown) => pulls.push(`failed: ${(error as Error).message}`));
        pulls.push(JSON.stringify(await call.next()));
        yield result as InvokeModelEvent;
      }, failingModel),
    ).toBe('nothing written');
    expect(pulls).toEqual(['failed: model unavailable', '{"done":true}']);
  });

  it("fails the pull after the result with the error of the invoke's completion callback, thrown at that pull", async () => {
    const context: InvokeModelContext = { model: countingModel, messages: [], systemPrompt: [], toolSpecs: [], invocationState: {} };
    const events = modelTerminal(context, {
      stage: InvokeModelStage,
      signal: new AbortController().signal,
      state: { calls: 0, events: 0 },
    });
    const failure = new Error('cannot record the state');
    (events as unknown as CompletionReporting)[reportCompletion](() => {
      throw failure;
    });
    const answers: string[] = [];
    for (let pull = 0; pull < 5; pull++) {
      answers.push(
        await events.next().then(
          ({ value, done }) => (done === true ? 'done' : value.type),
          (error: unknown) => (error === failure ? "the callback's error" : String(error)),
        ),
      );
    }
    expect(answers).toEqual(['textDelta', 'textDelta', 'modelResult', "the callback's error", 'done']);
  });
});
