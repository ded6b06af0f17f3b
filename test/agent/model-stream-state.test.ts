/**
 * The model terminal reports its own completion to the invoke's state
 * isolation, rather than being wrapped in a recorder: these tests pin that
 * the state written back is still that of the call that completed (MW-028,
 * MW-029), with a Wrap handler around the terminal.
 */
import { describe, expect, it } from 'vitest';
import { InvokeModelStage, modelTerminal, type InvokeModelContext, type InvokeModelEvent, type Model } from '../../src/agent/index';
import { MiddlewareRegistry } from '../../src/core/index';

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

  /** Runs one InvokeModelStage invoke with `wrap` as its Wrap handler; returns the state written back, if any. */
  async function writtenBack(wrap: Parameters<MiddlewareRegistry['add']>[1]): Promise<unknown> {
    const registry = new MiddlewareRegistry();
    registry.add(InvokeModelStage.Wrap, wrap as never);
    let written: unknown = 'nothing written';
    const context: InvokeModelContext = { model: countingModel, messages: [], systemPrompt: [], toolSpecs: [], invocationState: {} };
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
    const result = {
      type: 'modelResult',
      message: { role: 'assistant', content: [] },
      stopReason: 'endTurn',
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    };
    expect(
      await writtenBack(async function* stopAtResult(_context: unknown, next: () => AsyncGenerator<InvokeModelEvent>) {
        const call = next();
        for (let pulled = await call.next(); pulled.done !== true && pulled.value.type !== 'modelResult'; pulled = await call.next());
        await call.return(undefined);
        yield result as InvokeModelEvent;
      }),
    ).toBe('nothing written');
  });
});
